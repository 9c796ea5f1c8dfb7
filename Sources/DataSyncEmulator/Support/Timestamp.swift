import JSONCore

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
        ISO8601Timestamp.string(microsecondsSince1970: micros, fractionDigits: fraction ? 6 : 0)
    }
}
