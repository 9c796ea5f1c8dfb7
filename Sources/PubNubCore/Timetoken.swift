/// A PubNub timetoken: the 17-digit count of 100-nanosecond intervals since the Unix epoch
/// (1970-01-01 00:00:00 UTC) that the service stamps on every published message and returns from
/// `time()`.
///
/// Divide by 10 000 000 for seconds: `15643405135132358` is 2019-07-28 18:41:53.5 UTC.
public typealias Timetoken = UInt64
