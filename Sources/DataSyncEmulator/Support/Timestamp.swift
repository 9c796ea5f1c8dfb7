/// Times are kept as whole microseconds since the Unix epoch (UTC): exact, cheap to compare and
/// to persist, and the precision the service writes (`2026-09-07T07:34:55.265874Z`).
enum Timestamp {
    static let microsecondsPerSecond: Int64 = 1_000_000
    static let microsecondsPerDay: Int64 = 86_400_000_000

    /// `2026-09-07T07:34:55.265874Z`: six fraction digits, as the service writes `createdAt`.
    static func string(micros: Int64) -> String {
        format(micros: micros, fraction: true)
    }

    /// `2026-10-08T00:00:00Z`: no fraction, as the service writes `expiresAt`.
    static func wholeSecondString(micros: Int64) -> String {
        format(micros: micros, fraction: false)
    }

    /// The first instant of a UTC day at or after `micros` (an instant already at midnight stays).
    static func roundUpToDay(_ micros: Int64) -> Int64 {
        let day = floorDiv(micros, microsecondsPerDay)
        let start = day * microsecondsPerDay
        return start == micros ? micros : start + microsecondsPerDay
    }

    private static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    private static func format(micros: Int64, fraction: Bool) -> String {
        let seconds = floorDiv(micros, microsecondsPerSecond)
        let fractionMicros = micros - seconds * microsecondsPerSecond
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var out = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        out += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if fraction { out += "." + pad(fractionMicros, 6) }
        return out + "Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Howard Hinnant's days-to-civil conversion (proleptic Gregorian).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
