import PubNubBase
import Transport

/// Turns the HTTP log of a client's requests into `network` records: requests and answers at
/// `debug`, error statuses at `info`, failures at `warning`.
struct NetworkLogSink: HTTPLogSink {
    let logger: any PubNubLogger

    func log(_ record: HTTPLogRecord) {
        let level: PubNubLogLevel
        switch record.event {
        case .request: level = .debug
        case .response(let status): level = status >= 400 ? .info : .debug
        case .failure: level = .warning
        }
        logger.log(level, .network, record.description)
    }
}
