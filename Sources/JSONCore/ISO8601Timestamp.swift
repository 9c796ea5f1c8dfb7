public import Foundation

/// Reads and writes RFC 3339 / ISO 8601 timestamps such as `2026-05-22T10:15:30.123Z`.
///
/// Written here rather than with `ISO8601DateFormatter` because it is a value type (`Sendable`
/// with no locking), accepts any number of fraction digits (the service sends milli- and
/// microsecond precision), and is several times faster.
public enum ISO8601Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. `t`/`z` and a space for `T` are
    /// accepted; so is an offset written `±HHMM`. Returns `nil` for anything else.
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// Formats `date` in UTC with `fractionDigits` digits of seconds (0 to 9; 3 by default), for
    /// example `2026-05-22T10:15:30.123Z`. Precision is one microsecond; the fraction is truncated to
    /// the digits asked for, never rounded up into the next second.
    ///
    /// - Parameters:
    ///   - date: The instant to format, in UTC whatever the time zone of the machine.
    ///   - fractionDigits: How many digits of the seconds' fraction to write, 0 to 9 (values outside
    ///     are clamped); 3, milliseconds, by default.
    public static func string(from date: Date, fractionDigits: Int = 3) -> String {
        // Work in whole microseconds: a Double of seconds since 1970 is exact to well under a
        // microsecond for any date within centuries of now, so rounding here recovers the intended
        // value (1700000000.123 is stored as ...122999906) before the fraction is truncated.
        let scaled = (date.timeIntervalSince1970 * 1_000_000).rounded()
        return string(microsecondsSince1970: Int64(exactly: scaled) ?? 0, fractionDigits: fractionDigits)
    }

    /// Formats an instant given as whole microseconds since 1970 in UTC, with `fractionDigits`
    /// digits of seconds (0 to 9; digits past the sixth are zeros). Exact: no floating point.
    ///
    /// - Parameters:
    ///   - micros: The instant as whole microseconds since 1970-01-01T00:00:00Z; negative for earlier
    ///     instants.
    ///   - fractionDigits: How many digits of the seconds' fraction to write, 0 to 9 (values outside
    ///     are clamped).
    public static func string(microsecondsSince1970 micros: Int64, fractionDigits: Int) -> String {
        let digits = min(max(fractionDigits, 0), 9)
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        let fraction = micros - seconds * 1_000_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var out = ""
        out.reserveCapacity(32)
        out += pad(year, 4)
        out += "-" + pad(month, 2) + "-" + pad(day, 2)
        out += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if digits > 0 {
            let sixDigits = pad(fraction, 6)
            out +=
                "."
                + (digits <= 6
                    ? String(sixDigits.prefix(digits)) : sixDigits + String(repeating: "0", count: digits - 6))
        }
        out += "Z"
        return out
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (after Howard Hinnant's civil algorithm).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// A proleptic Gregorian date to days since 1970-01-01.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer) -> Date? {
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for offset in 0..<width {
                let byte = bytes[index + offset]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += width
            return value
        }
        func expect(_ allowed: UInt8...) -> Bool {
            guard index < bytes.count, allowed.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
            expect(0x54, 0x74, 0x20), let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour < 24,
            minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            var scale = 0.1
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetSeconds: Int64 = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case 0x5A, 0x7A:
            index += 1
        case 0x2B, 0x2D:
            let negative = bytes[index] == 0x2D
            index += 1
            guard let offsetHours = number(2), offsetHours < 24 else { return nil }
            _ = expect(0x3A)
            guard let offsetMinutes = number(2), offsetMinutes < 60 else { return nil }
            offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (negative ? -1 : 1)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let dayCount = days(year: year, month: month, day: day)
        let seconds = dayCount * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
