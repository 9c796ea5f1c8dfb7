import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure talking to the browser, with what it said.
struct BrowserFailure: Error, CustomStringConvertible {
    var description: String
}

/// One page of a browser driven over the Chrome DevTools protocol: JSON messages over the page
/// target's websocket (RFC 6455 framing written here: text frames, masked from the client).
final class DevToolsPage: @unchecked Sendable {
    private let socket: RawSocket
    private var nextID = 0

    private init(socket: RawSocket) {
        self.socket = socket
    }

    /// Connects to the first page target of the browser whose DevTools listen on `port`.
    static func connect(port: UInt16) async throws -> DevToolsPage {
        try await onThread {
            let targets = try Self.getJSON(port: port, path: "/json/list")
            guard let page = targets.arrayValue?.first(where: { $0["type"] == "page" }),
                let address = page["webSocketDebuggerUrl"]?.stringValue, let url = URL(string: address)
            else { throw BrowserFailure(description: "no page target in \(targets)") }
            let socket = try RawSocket(port: port, timeout: 30)
            var generator = SystemRandomNumberGenerator()
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
            try socket.send(
                Array(
                    ("GET \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
                        + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
            )
            let head = String(decoding: try socket.read(through: Array("\r\n\r\n".utf8)), as: UTF8.self)
            guard head.hasPrefix("HTTP/1.1 101") else {
                throw BrowserFailure(description: "the browser refused the websocket: \(head)")
            }
            return DevToolsPage(socket: socket)
        }
    }

    /// A DevTools HTTP endpoint's JSON (`/json/list`, `/json/version`).
    static func getJSON(port: UInt16, path: String) throws -> JSONValue {
        let socket = try RawSocket(port: port, timeout: 30)
        try socket.send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
        let head = String(decoding: try socket.read(through: Array("\r\n\r\n".utf8)), as: UTF8.self)
        guard
            let lengthLine = head.components(separatedBy: "\r\n").first(where: {
                $0.lowercased().hasPrefix("content-length:")
            }),
            let length = Int(lengthLine.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { throw BrowserFailure(description: "unexpected DevTools answer: \(head)") }
        return try JSONValue(parsing: try socket.read(exactly: length))
    }

    /// Sends one command and returns its `result`; events that arrive meanwhile are skipped.
    @discardableResult
    func call(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
        nextID += 1
        let id = nextID
        let message: JSONValue = ["id": .int(Int64(id)), "method": .string(method), "params": params]
        let bytes = try message.jsonBytes()
        return try await onThread { [self] in
            try self.sendFrame(opcode: 1, bytes)
            while true {
                let reply = try JSONValue(parsing: try self.readMessage())
                guard reply["id"]?.intValue == id else { continue }
                if let error = reply["error"] { throw BrowserFailure(description: "\(method) failed: \(error)") }
                return reply["result"] ?? [:]
            }
        }
    }

    /// The value of a JavaScript expression in the page (promises awaited).
    func evaluate(_ expression: String) async throws -> JSONValue {
        let result = try await call(
            "Runtime.evaluate", ["expression": .string(expression), "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] {
            throw BrowserFailure(description: "\(expression) threw \(exception)")
        }
        return result["result"]?["value"] ?? .null
    }

    /// Waits until `expression` is true in the page, looking every 100 ms. An expression that
    /// throws (the page is still navigating) counts as false; the last exception is reported on
    /// timeout.
    func waitUntil(_ expression: String, timeout: Duration = .seconds(20), _ what: String) async throws {
        let deadline = ContinuousClock.now + timeout
        var lastFailure: BrowserFailure?
        while ContinuousClock.now < deadline {
            do {
                if try await evaluate("Boolean(\(expression))") == true { return }
            } catch let failure as BrowserFailure {
                lastFailure = failure
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BrowserFailure(
            description: "timed out waiting for \(what)" + (lastFailure.map { "; last exception: \($0)" } ?? ""))
    }

    private func sendFrame(opcode: UInt8, _ payload: [UInt8]) throws {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (UInt64($0) * 8)) & 0xFF) }
        }
        var generator = SystemRandomNumberGenerator()
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try socket.send(frame)
    }

    /// One whole message (continuation frames joined); pings are answered, close is an error.
    private func readMessage() throws -> [UInt8] {
        var message: [UInt8] = []
        while true {
            let head = try socket.read(exactly: 2)
            let final = head[0] & 0x80 != 0
            let opcode = head[0] & 0x0F
            var length = UInt64(head[1] & 0x7F)
            if length == 126 {
                length = try socket.read(exactly: 2).reduce(0) { $0 << 8 | UInt64($1) }
            } else if length == 127 {
                length = try socket.read(exactly: 8).reduce(0) { $0 << 8 | UInt64($1) }
            }
            let mask = head[1] & 0x80 != 0 ? try socket.read(exactly: 4) : nil
            var payload = try socket.read(exactly: Int(length))
            if let mask { payload = payload.enumerated().map { $0.element ^ mask[$0.offset % 4] } }
            switch opcode {
            case 0x8: throw BrowserFailure(description: "the browser closed the DevTools connection")
            case 0x9:
                try sendFrame(opcode: 0xA, payload)
                continue
            case 0xA: continue
            default: message += payload
            }
            if final { return message }
        }
    }
}

/// Headless Chromium started for one test, with DevTools on an ephemeral port.
struct Chromium {
    /// `CHROMIUM` when set (then the browser test must run and pass); otherwise Debian's
    /// `/usr/bin/chromium` when installed; nil (the test is skipped) when neither.
    static var executable: String? {
        if let path = ProcessInfo.processInfo.environment["CHROMIUM"], !path.isEmpty { return path }
        for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        return nil
    }

    let process: ChildProcess
    let profile: URL
    /// Where the browser's output is written when it stops.
    let log: URL
    /// The DevTools port.
    let port: UInt16

    /// Starts the browser on `about:blank`; its output goes to `log`.
    static func launch(_ executable: String, log: URL) async throws -> Chromium {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BrowserFailure(description: "CHROMIUM names \(executable), which is not an executable")
        }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("console-chromium-\(UUID())")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
            "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir=\(profile.path)",
            "--window-size=1280,900", "about:blank",
        ]
        // posix_spawn through ChildProcess: Foundation's Process.run() can crash on this toolchain.
        let process = try ChildProcess(executable: executable, arguments: arguments, mergingStandardError: true)
        // Chromium writes the port it chose, then the browser target's path.
        let portFile = profile.appendingPathComponent("DevToolsActivePort")
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: portFile, encoding: .utf8),
                let port = text.split(separator: "\n").first.flatMap({ UInt16($0) })
            {
                return Chromium(process: process, profile: profile, log: log, port: port)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.send(SIGTERM)
        let tail = String(process.standardOutput.suffix(2_000))
        try? Data(process.standardOutput.utf8).write(to: log)
        throw BrowserFailure(description: "Chromium did not open DevTools within 30 s; its output ends: \(tail)")
    }

    /// Stops the browser (SIGTERM to the process this test started) and removes its profile.
    func stop() async {
        process.send(SIGTERM)
        if let result = try? await process.finish(timeout: .seconds(20)) {
            try? Data(result.standardOutput.utf8).write(to: log)
        }
        try? FileManager.default.removeItem(at: profile)
    }
}

extension Trait where Self == ConditionTrait {
    /// A browser test runs where Chromium is (CI always has it) and must pass there.
    static var needsChromium: Self {
        .enabled(if: Chromium.executable != nil, "no Chromium: apt-get install chromium, or set CHROMIUM")
    }
}

/// Starts `emulator` and a headless Chromium logging to `log` in the artifacts folder, runs `body`
/// with both and that folder (for screenshots), and always stops the browser and then the
/// emulator, also when `body` or the launch throws.
func withConsoleBrowser(
    _ emulator: Emulator, log: String,
    _ body: (_ base: URL, _ browser: Chromium, _ artifacts: URL) async throws -> Void
) async throws {
    let executable = try #require(Chromium.executable)
    let artifacts = try ConsoleBrowserTests.artifacts()
    let base = try await emulator.start()
    let browser: Chromium
    do {
        browser = try await Chromium.launch(executable, log: artifacts.appendingPathComponent(log))
    } catch {
        await emulator.stop()
        throw error
    }
    try await runThenStop(
        { try await body(base, browser, artifacts) },
        stop: {
            await browser.stop()
            await emulator.stop()
        })
}

extension DevToolsPage {
    /// Connects to `browser`'s page, gives it a `width`×900 viewport when `width` is set, opens the
    /// emulator's console at `fragment` (such as `#keyset=demo`) and returns once it has loaded.
    static func openConsole(
        of emulator: Emulator, in browser: Chromium, fragment: String, width: Int? = nil
    ) async throws -> DevToolsPage {
        let page = try await connect(port: browser.port)
        if let width {
            try await page.call(
                "Emulation.setDeviceMetricsOverride",
                ["width": .int(Int64(width)), "height": 900, "deviceScaleFactor": 1, "mobile": false])
        }
        try await page.call("Page.enable")
        guard let console = await emulator.consoleURL else {
            throw BrowserFailure(description: "the emulator has no console URL")
        }
        try await page.call("Page.navigate", ["url": .string(console.absoluteString + fragment)])
        try await page.waitUntil("document.documentElement.dataset.ready === '1'", "the console to load")
        return page
    }
}
