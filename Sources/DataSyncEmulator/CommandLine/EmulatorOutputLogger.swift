public import PubNubBase

/// How the emulator executables (`datasync-emulator`, `datasync emulator`) print the records of
/// ``EmulatorConfiguration/logger`` from `--log-level` up: an `info` record as its bare line on
/// standard output, so request lines read as they always did; a `debug` record on standard output
/// after `debug: `; a `warning` as it is on standard error (warnings name themselves, such as
/// `WARNING: listening on 0.0.0.0 …`); an `error` on standard error after `error: `.
///
/// The two writers are the caller's, so that standard output can go through a `LineWriter`
/// (module `EmulatorHTTP`), which never blocks a request.
///
/// ```swift
/// let output = LineWriter(fileDescriptor: STDOUT_FILENO)
/// configuration.logger = EmulatorOutputLogger(
///     minimumLevel: options.logLevel, standardOutput: { output.write($0) },
///     standardError: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
/// ```
public struct EmulatorOutputLogger: PubNubLogger {
    /// The least important level printed.
    public var minimumLevel: PubNubLogLevel
    private let standardOutput: @Sendable (String) -> Void
    private let standardError: @Sendable (String) -> Void

    /// Creates the logger; each writer takes one line without its newline and must not block.
    public init(
        minimumLevel: PubNubLogLevel = .info, standardOutput: @escaping @Sendable (String) -> Void,
        standardError: @escaping @Sendable (String) -> Void
    ) {
        self.minimumLevel = minimumLevel
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Writes the record's message to the stream its level goes to.
    public func log(_ record: PubNubLogRecord) {
        switch record.level {
        case .debug: standardOutput("debug: " + record.message)
        case .info: standardOutput(record.message)
        case .warning: standardError(record.message)
        case .error: standardError("error: " + record.message)
        }
    }
}
