import DataSyncEmulator
import Foundation
import JSONCore
import Testing
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("the standalone emulator: default port, config file, datasync init, banner", .timeLimit(.minutes(2)))
struct EmulatorConfigTests {
    /// A fresh directory, removed after `body`.
    func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("datasync-config-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    func options(_ arguments: [String], currentDirectory: String?) throws -> EmulatorOptions {
        let expanded = try EmulatorConfigFile.expand(arguments, currentDirectory: currentDirectory)
        guard case .run(let options) = try EmulatorOptions.parse(expanded.arguments) else {
            throw HarnessFailure("expected options, got help")
        }
        return options
    }

    @Test("without --port the standalone emulator listens on 8090; --port 0 still asks for a free port")
    func defaultPort() throws {
        #expect(EmulatorOptions.defaultPort == 8090)
        #expect(try options([], currentDirectory: nil).port == 8090)
        #expect(try options(["--port", "0"], currentDirectory: nil).port == 0)
    }

    @Test("the config file's keys are the flags; flags given override it; paths are relative to the file")
    func fileThenFlags() async throws {
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("emu.json")
            try write(
                #"""
                {"port": 9001, "subscribeKey": "fromfile", "publishKey": "pubfile", "seed": "seed.json",
                 "stateFile": "/abs/state.json", "keysets": ["a:b:c"], "accessControl": true,
                 "allowedHosts": ["myapp.test"], "classes": null, "noRequestLines": false}
                """#, to: file)
            let read = try options(["--config", file.path], currentDirectory: nil)
            #expect(read.port == 9001)
            #expect(read.subscribeKey == "fromfile")
            #expect(read.publishKey == "pubfile")
            #expect(read.seedFile == directory.appendingPathComponent("seed.json").path)
            #expect(read.stateFile == "/abs/state.json")
            #expect(read.extraKeysets.map(\.subscribeKey) == ["b"])
            #expect(read.accessControl)
            #expect(read.allowedHosts == ["myapp.test"])
            #expect(read.classesFile == nil)
            #expect(!read.quietRequests)
            let overridden = try options(
                ["--config=\(file.path)", "--port", "0", "--subscribe-key", "flag", "--keyset", "d:e:f"],
                currentDirectory: nil)
            #expect(overridden.port == 0)
            #expect(overridden.subscribeKey == "flag")
            #expect(overridden.extraKeysets.map(\.subscribeKey) == ["b", "e"])
        }
    }

    @Test("./datasync.json is read when --config is not given, and only by the executables")
    func defaultFile() async throws {
        try await withDirectory { directory in
            try write(#"{"subscribeKey": "here"}"#, to: directory.appendingPathComponent("datasync.json"))
            #expect(try options([], currentDirectory: directory.path).subscribeKey == "here")
            #expect(try options([], currentDirectory: nil).subscribeKey == "demo")
        }
    }

    @Test("mistakes in the config file name the key and the nearest one")
    func mistakes() async throws {
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("bad.json")
            for (text, message) in [
                (#"{"subscribekey": "x"}"#, #"unknown key "subscribekey" in the config file"#),
                (#"{"subscribekey": "x"}"#, #"(did you mean "subscribeKey"?)"#),
                (#"{"port": true}"#, #""port" in the config file \#(file.path) must be a string or a whole number"#),
                (#"{"accessControl": "yes"}"#, "must be true or false"),
                (#"{"keysets": "a:b:c"}"#, "must be an array of strings"),
                ("[1]", "must hold a JSON object"),
                ("{oops", "is not valid JSON"),
            ] {
                try write(text, to: file)
                let error = #expect(throws: EmulatorOptionsError.self) {
                    try options(["--config", file.path], currentDirectory: nil)
                }
                #expect(error?.message.contains(message) == true, "\(text): \(String(describing: error))")
            }
            #expect(throws: EmulatorOptionsError.self) {
                try options(["--config", directory.appendingPathComponent("missing.json").path], currentDirectory: nil)
            }
        }
    }

    @Test("datasync init writes a config file the emulator reads, and keeps an existing one")
    func initCommand() async throws {
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("datasync.json")
            let first = try await CLIEnvironment.run(["init", "--file", file.path])
            #expect(first.status == 0, "\(first)")
            #expect(first.stdout == file.path + "\n", "\(first)")
            let read = try options([], currentDirectory: directory.path)
            #expect(read.port == 8090)
            #expect(read.subscribeKey == "demo")
            #expect(read.stateFile == directory.appendingPathComponent("datasync-state.json").path)
            let again = try await CLIEnvironment.run(["init", "--file", file.path])
            #expect(again.status == 2, "\(again)")
            #expect(again.stderr.contains("exists; pass --force to replace it"), "\(again)")
            let forced = try await CLIEnvironment.run(["init", "--file", file.path, "--force"])
            #expect(forced.status == 0, "\(forced)")
        }
    }

    @Test("datasync emulator reads the config file, a flag overrides it, and the banner has the console URL")
    func emulatorBanner() async throws {
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("emu.json")
            try write(#"{"port": 1, "subscribeKey": "cfgkey", "noRequestLines": true}"#, to: file)
            let process = try CLIProcess(
                ["emulator", "--config", file.path, "--port", "0"], environment: CLIEnvironment.clean(home: directory))
            let (out, _) = try await process.waitFor("the banner") { out, _ in out.contains("Press Ctrl-C") }
            #expect(out.contains("subscribe key: cfgkey"), "\(out)")
            #expect(out.contains("config file: \(file.path)"), "\(out)")
            #expect(out.contains("console: http://127.0.0.1:"), "\(out)")
            #expect(out.contains("/_emulator/console/"), "\(out)")
            process.send(SIGINT)
            #expect(try await process.finish().status == 0)
        }
    }

    @Test("logLevel in the config file: debug prints each request's sizes after its line; a flag overrides it")
    func logLevelFromConfigFile() async throws {
        try await withDirectory { directory in
            let file = directory.appendingPathComponent("emu.json")
            try write(#"{"logLevel": "debug"}"#, to: file)
            #expect(try options(["--config", file.path], currentDirectory: nil).logLevel == .debug)
            #expect(
                try options(["--config", file.path, "--log-level", "error"], currentDirectory: nil).logLevel == .error)

            let process = try CLIProcess(
                ["emulator", "--config", file.path, "--port", "0"], environment: CLIEnvironment.clean(home: directory))
            let (banner, _) = try await process.waitFor("the banner") { out, _ in out.contains("Press Ctrl-C") }
            let origin = try #require(
                banner.split(separator: "\n").first { $0.hasPrefix("origin: ") }?.dropFirst("origin: ".count))
            let url = try #require(URL(string: String(origin)))
            _ = try await CurlHTTPClient().send(
                HTTPRequest(
                    method: .get, scheme: "http", host: url.host ?? "", port: url.port, path: "/time/0",
                    queryItems: [HTTPQueryItem(name: "auth", value: "SECRET-TOKEN")]))
            let (out, _) = try await process.waitFor("the request's debug record") { out, _ in
                out.contains("debug:   0 request bytes")
            }
            #expect(out.contains("GET /time/0?auth=REDACTED -> 200"), "\(out)")
            #expect(!out.contains("SECRET-TOKEN"), "\(out)")
            process.send(SIGINT)
            #expect(try await process.finish().status == 0)
        }
    }
}
