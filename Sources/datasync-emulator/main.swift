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
    let (bareSignals, bareSources) = StopSignals.stream()
    for await _ in bareSignals { break }
    await server.stop()
    for source in bareSources { source.cancel() }
    output.flush(timeout: .seconds(2))
    exit(0)
}

let parser = ArgumentParser<Never>.tool(EmulatorOptions.command(program: program))
// The config file's flags (--config FILE, or ./datasync.json) come first, so any flag overrides them.
let givenArguments = Array(CommandLine.arguments.dropFirst())
let expanded: (arguments: [String], file: String?)
do throws(EmulatorOptionsError) {
    // --help and --version answer even when the config file is broken.
    let asksOnly = givenArguments.contains { ["--help", "-h", "--version"].contains($0) }
    expanded =
        asksOnly
        ? (givenArguments, nil)
        : try EmulatorConfigFile.expand(givenArguments, currentDirectory: FileManager.default.currentDirectoryPath)
} catch {
    let isUsage = error.code != .unreadableFile && error.code != .invalidFile
    fail(isUsage ? "\(error.message)\nsee '\(program) --help'" : error.message, status: isUsage ? 2 : 1)
}
let parsedArguments: ParsedArguments
switch parser.resolve(expanded.arguments, program: program) {
case .run(_, let parsed): parsedArguments = parsed
case .exit(let status): exit(status)
}
let options: EmulatorOptions
var configuration: EmulatorConfiguration
do throws(EmulatorOptionsError) {
    options = try EmulatorOptions(parsed: parsedArguments)
    configuration = try options.configuration()
} catch {
    let isUsage = error.code != .unreadableFile && error.code != .invalidFile
    fail(isUsage ? "\(error.message)\nsee '\(program) --help'" : error.message, status: isUsage ? 2 : 1)
}
// Request lines (info), their sizes (debug) and warnings go through one logger at --log-level.
let logger = EmulatorOutputLogger(
    minimumLevel: options.logLevel, standardOutput: log,
    standardError: { FileHandle.standardError.write(Data("\($0)\n".utf8)) })
configuration.logger = logger
let emulator: Emulator
do {
    emulator = try Emulator(configuration: configuration)
} catch {
    fail("\(error)", status: error.code == .invalidConfiguration ? 2 : 1)
}

let (signals, sources) = StopSignals.stream()

let url: URL
do {
    // The logger prints the request lines unless `--no-request-lines` (the in-memory request log
    // still has them).
    url = try await emulator.start(host: options.host, port: options.port)
} catch {
    fail("\(error)\(options.portHint)")
}
// Before the banner, and on standard error, where they are not lost among request lines.
for warning in options.securityWarnings { logger.log(.warning, .emulator, warning) }
for line in options.bannerLines(url: url, emulator: emulator, configFile: expanded.file) { log(line) }
log("Press Ctrl-C to stop.")

for await number in signals {
    logger.log(.info, .emulator, "received signal \(number), stopping")
    break
}
await emulator.stop()
for source in sources { source.cancel() }
logger.log(.info, .emulator, "stopped")
output.flush(timeout: .seconds(2))
exit(0)
