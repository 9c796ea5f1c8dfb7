/// A PubNub timetoken: a 17-digit count of 100-nanosecond ticks since the Unix epoch, as the
/// service stamps publishes and subscribe cursors (`17_800_000_000_000_000` is 2026-05-28).
///
/// Shared by every feature: publish returns one, subscribe starts from one, presence events carry
/// one.
public typealias Timetoken = UInt64
