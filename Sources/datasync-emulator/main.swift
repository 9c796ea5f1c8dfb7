// datasync-emulator: serves the DataSync REST API locally. See Documentation/Emulator.md.
import DataSyncEmulator
import Dispatch
import Foundation
import JSONCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Options {
    var host = "127.0.0.1"
    var port: UInt16 = 0
    var classesFile: String?
    var seedFile: String?
    var stateFile: String?
    var filterFastLimit = 10
    var publishKey = PubSubKeyset.demo.publishKey
    var subscribeKey = PubSubKeyset.demo.subscribeKey
    var secretKey = PubSubKeyset.demo.secretKey
    /// Access control on the main keyset: on when `--secret-key` is given, or with `--access-control`.
    var secretKeyGiven = false
    /// `--access-control`: on for every keyset.
    var accessControl = false
    var extraKeysets: [PubSubKeyset] = []
    var catchUpBuffer = PubSubConfiguration().catchUpBufferSize
    var announceMax = PubSubConfiguration().presenceAnnounceMax
    var presenceInterval = PubSubConfiguration().presenceInterval
}

let usage = """
    usage: datasync-emulator [--host ADDRESS] [--port N] [--classes FILE] [--seed FILE]
                             [--state-file FILE] [--filter-fast-limit N]
                             [--publish-key K] [--subscribe-key K] [--secret-key K]
                             [--keyset PUB:SUB:SECRET]... [--access-control] [--catch-up-buffer N]
                             [--presence-announce-max N] [--presence-interval SECONDS]

    Access control is off unless --secret-key is given (it then covers the main keyset) or
    --access-control is passed (every keyset; the default secret key is demo-secret).
    """

/// Writes one line to standard output at once (no stdio buffering, so piped logs are live).
func log(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("datasync-emulator: \(message)\n".utf8))
    exit(1)
}

func parseOptions(_ arguments: [String]) -> Options {
    var options = Options()
    var index = 0
    func value(_ name: String) -> String {
        index += 1
        guard index < arguments.count else { fail("\(name) needs a value\n\(usage)") }
        return arguments[index]
    }
    while index < arguments.count {
        let argument = arguments[index]
        switch argument {
        case "--host": options.host = value(argument)
        case "--port":
            guard let port = UInt16(value(argument)) else { fail("--port takes 0 to 65535") }
            options.port = port
        case "--classes": options.classesFile = value(argument)
        case "--seed": options.seedFile = value(argument)
        case "--state-file": options.stateFile = value(argument)
        case "--filter-fast-limit":
            guard let limit = Int(value(argument)), limit >= 1 else {
                fail("--filter-fast-limit takes a positive number")
            }
            options.filterFastLimit = limit
        case "--publish-key": options.publishKey = value(argument)
        case "--subscribe-key": options.subscribeKey = value(argument)
        case "--secret-key":
            options.secretKey = value(argument)
            options.secretKeyGiven = true
        case "--access-control": options.accessControl = true
        case "--keyset":
            let parts = value(argument).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
                fail("--keyset takes PUBLISH:SUBSCRIBE:SECRET")
            }
            options.extraKeysets.append(PubSubKeyset(publishKey: parts[0], subscribeKey: parts[1], secretKey: parts[2]))
        case "--catch-up-buffer":
            guard let size = Int(value(argument)), size >= 1 else { fail("--catch-up-buffer takes a positive number") }
            options.catchUpBuffer = size
        case "--presence-announce-max":
            guard let limit = Int(value(argument)), limit >= 0 else {
                fail("--presence-announce-max takes a number")
            }
            options.announceMax = limit
        case "--presence-interval":
            guard let seconds = Int(value(argument)), seconds >= 1 else {
                fail("--presence-interval takes a positive number of seconds")
            }
            options.presenceInterval = seconds
        case "--help", "-h":
            log(usage)
            exit(0)
        default: fail("unknown option \(argument)\n\(usage)")
        }
        index += 1
    }
    return options
}

func readJSON(_ path: String, what: String) -> JSONValue {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read the \(what) file \(path)") }
    do {
        return try JSONValue(parsing: [UInt8](data))
    } catch {
        fail("the \(what) file \(path) is not valid JSON: \(error)")
    }
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let configuration = EmulatorConfiguration(
    filterFastConditionLimit: options.filterFastLimit,
    classes: options.classesFile.map { readJSON($0, what: "classes") },
    seed: options.seedFile.map { readJSON($0, what: "seed") },
    stateFile: options.stateFile,
    pubSub: PubSubConfiguration(
        keysets: [
            PubSubKeyset(
                publishKey: options.publishKey, subscribeKey: options.subscribeKey, secretKey: options.secretKey,
                accessControl: options.secretKeyGiven || options.accessControl)
        ]
            + options.extraKeysets.map { keyset in
                var keyset = keyset
                keyset.accessControl = options.accessControl
                return keyset
            },
        catchUpBufferSize: options.catchUpBuffer, presenceAnnounceMax: options.announceMax,
        presenceInterval: options.presenceInterval))
let emulator: Emulator
do {
    emulator = try Emulator(configuration: configuration)
} catch {
    fail("\(error)")
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
    url = try await emulator.start(host: options.host, port: options.port, requestLog: log)
} catch {
    fail("\(error)")
}
log("DataSync emulator listening on \(url.absoluteString)")
// Scripts read these three lines (`origin: `, `publish key: `, `subscribe key: `); keep their form.
log("origin: \(url.absoluteString)")
log("publish key: \(options.publishKey)")
log("subscribe key: \(options.subscribeKey)")
log("secret key: \(options.secretKey)")
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
exit(0)
