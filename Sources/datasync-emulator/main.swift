// datasync-emulator: serves the DataSync REST API locally. See Documentation/Emulator.md.
import ArgumentParsing
import DataSyncEmulator
import Dispatch
import EmulatorHTTP
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The flags are the table of `EmulatorOptions` (DataSyncEmulator), shared with `datasync emulator`,
// read by the package's one argument parser.
let program = "datasync-emulator"

// A reader that closes its end of our output (`datasync-emulator | head -1`) must not kill us:
// writes to a closed pipe or socket fail with EPIPE instead of raising SIGPIPE.
signal(SIGPIPE, SIG_IGN)
/// Standard output, written by a thread of its own: logging never blocks a request, and when the
/// reader stops reading (or closes the pipe) lines are dropped and counted (Emulator.md, "Limits").
nonisolated let output = LineWriter(fileDescriptor: STDOUT_FILENO)

/// Queues one line for standard output and returns at once.
func log(_ line: String) {
    output.write(line)
}

/// Prints `message` on standard error and exits with `status`: 2 for a usage error (bad flags or
/// values), 1 for anything that failed after them.
func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("datasync-emulator: \(message)\n".utf8))
    exit(status)
}

// A measurement aid for Scripts/server-throughput.sh, not part of the emulator: with
// `--bare-http-server PORT FILE` as its only arguments, the binary serves FILE's bytes to every
// request from the bare HTTPServer (answered at once on its thread) on 127.0.0.1:PORT, so the
// server's own cost can be told apart from the emulator's.
/// Answers every request with the same bytes, at once.
struct BareFileHandler: ServerHandler {
    let body: [UInt8]

    func respondImmediately(to request: ServerRequest) -> ServerResponse? {
        ServerResponse(status: 200, headers: [(name: "Content-Type", value: "application/json")], body: body)
    }

    func handle(_ request: ServerRequest) async -> ServerResponse {
        ServerResponse(status: 200, headers: [(name: "Content-Type", value: "application/json")], body: body)
    }
}

let bareArguments = Array(CommandLine.arguments.dropFirst())
if bareArguments.count == 3, bareArguments[0] == "--bare-http-server" {
    guard let port = UInt16(bareArguments[1]), let data = FileManager.default.contents(atPath: bareArguments[2]) else {
        fail("usage: datasync-emulator --bare-http-server PORT FILE", status: 2)
    }
    let server = HTTPServer(
        configuration: HTTPServer.Configuration(host: "127.0.0.1", port: port),
        handler: BareFileHandler(body: Array(data)))
    do {
        try await server.start()
    } catch {
        fail("\(error)")
    }
    log("bare HTTP server listening on 127.0.0.1:\(port)")
    let (bareSignals, bareSources) = signalStream()
    for await _ in bareSignals { break }
    await server.stop()
    for source in bareSources { source.cancel() }
    output.flush(timeout: .seconds(2))
    exit(0)
}

let parser = ArgumentParser<Never>.tool(EmulatorOptions.command(program: program))
let parsedArguments: ParsedArguments
switch parser.resolve(Array(CommandLine.arguments.dropFirst()), program: program) {
case .run(_, let parsed): parsedArguments = parsed
case .exit(let status): exit(status)
}
let options: EmulatorOptions
let configuration: EmulatorConfiguration
do throws(EmulatorOptionsError) {
    options = try EmulatorOptions(parsed: parsedArguments)
    configuration = try options.configuration()
} catch {
    let isUsage = error.code != .unreadableFile && error.code != .invalidFile
    fail(isUsage ? "\(error.message)\nsee '\(program) --help'" : error.message, status: isUsage ? 2 : 1)
}
let emulator: Emulator
do {
    emulator = try Emulator(configuration: configuration)
} catch {
    fail("\(error)", status: error.code == .invalidConfiguration ? 2 : 1)
}

// Signals are turned into stream elements by dispatch sources on their own queue, so no thread of
// the cooperative pool ever waits for one. The handler is @Sendable and nonisolated: it runs on
// the signal queue, not on the main actor.
nonisolated func signalStream() -> (AsyncStream<Int32>, [any DispatchSourceSignal]) {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(4))
    let queue = DispatchQueue(label: "datasync-emulator.signals")
    let sources = [SIGINT, SIGTERM].map { number in
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler { @Sendable in continuation.yield(number) }
        source.resume()
        return source
    }
    return (stream, sources)
}
let (signals, sources) = signalStream()

let url: URL
do {
    // `--no-request-lines` prints no line per request (the in-memory request log still has them).
    url = try await emulator.start(
        host: options.host, port: options.port, requestLog: options.quietRequests ? nil : log)
} catch {
    fail("\(error)")
}
// Before the banner, and on standard error, where they are not lost among request lines.
for warning in options.securityWarnings { FileHandle.standardError.write(Data("\(warning)\n".utf8)) }
log("DataSync emulator listening on \(url.absoluteString)")
// Scripts read these three lines (`origin: `, `publish key: `, `subscribe key: `); keep their form.
log("origin: \(url.absoluteString)")
log("publish key: \(options.publishKey)")
log("subscribe key: \(options.subscribeKey)")
log(options.secretKeyLine)
let mainProtected = options.secretKeyGiven || options.accessControl
log("access control: \(mainProtected ? "on" : "off")")
for extra in options.extraKeysets {
    log(
        "also keyset: publish key \(extra.publishKey), subscribe key \(extra.subscribeKey), access control "
            + (options.accessControl ? "on" : "off"))
}
log("DataSync accepts any subscribe key (each is its own keyset); pub/sub and presence only the keys above.")
if mainProtected || options.accessControl {
    log("Credentials: protected keysets need a token (POST /v3/pam/{sub}/grant) or a request signature.")
} else {
    log("Credentials: none are checked; any auth token is accepted (pass --secret-key to turn access control on).")
}
if let stateFile = options.stateFile { log("State file: \(stateFile)") }
if let summary = emulator.seedSummary { log(summary.description) }
let console = url.absoluteString + Emulator.adminPathPrefix + "/console/"
if emulator.adminSecretRequired {
    log("console: \(console)#secret=\(emulator.adminSecret)")
    log("admin secret: \(emulator.adminSecret) (admin calls send Authorization: Bearer <secret>)")
} else {
    log("console: \(console)")
}
log(
    mainProtected
        ? "try: curl -s \(url.absoluteString)/time/0"
        : "try: curl -s '\(url.absoluteString)/v1/datasync/subkeys/\(options.subscribeKey)/users?limit=5'")
log("Press Ctrl-C to stop.")

for await number in signals {
    log("received signal \(number), stopping")
    break
}
await emulator.stop()
for source in sources { source.cancel() }
log("stopped")
output.flush(timeout: .seconds(2))
exit(0)
