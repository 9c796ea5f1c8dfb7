import BuildInfo
import DataSyncTestSupport
import Foundation
import Testing

/// Every executable of the package answers `--help`, `--version` and a bad flag the same way
/// (Documentation/CLI.md, "Conventions of every executable"): help and version on standard output
/// with status 0, a usage error on standard error with status 2 and nothing on standard output.
@Suite("every executable: --help, --version, a bad flag", .timeLimit(.minutes(3)))
struct ExecutableConventionsTests {
    /// The package's executables: the five tools and one fuzz harness per `Sources/fuzz-*` folder.
    static let names: [String] = {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        let harnesses = folders.filter { $0.hasPrefix("fuzz-") }.sorted()
        return ["datasync", "datasync-emulator", "datasync-quickstart", "datasync-codegen", "datasync-bench"]
            + harnesses
    }()

    /// The built executable `name`, next to the `datasync` binary the CLI tests run.
    static func binary(_ name: String) throws -> String {
        let cli = try CLIBinary.require()
        let url = cli.deletingLastPathComponent().appendingPathComponent(name)
        try #require(
            FileManager.default.isExecutableFile(atPath: url.path),
            "\(name) is not built next to datasync (swift build)")
        return url.path
    }

    static func run(_ name: String, _ arguments: [String]) async throws -> ChildProcessResult {
        try await ChildProcess(executable: try binary(name), arguments: arguments, environment: [:]).finish(
            timeout: .seconds(60))
    }

    @Test("the list covers the five tools and the fuzz harnesses")
    func everyExecutable() {
        #expect(Self.names.count >= 16, "\(Self.names)")
    }

    @Test("--help: usage on stdout, nothing on stderr, status 0", arguments: names)
    func help(_ name: String) async throws {
        let result = try await Self.run(name, ["--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("usage: \(name)"), "\(result)")
        #expect(result.standardError.isEmpty, "\(result)")
    }

    @Test("--version: the package version on stdout, status 0", arguments: names)
    func version(_ name: String) async throws {
        let result = try await Self.run(name, ["--version"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput == "\(name) \(PackageVersion.current)\n", "\(result)")
        #expect(result.standardError.isEmpty, "\(result)")
    }

    @Test("a bad flag: the error and a did-you-mean on stderr, nothing on stdout, status 2", arguments: names)
    func badFlag(_ name: String) async throws {
        let result = try await Self.run(name, ["--verison"])
        #expect(result.status == 2, "\(result)")
        #expect(result.standardOutput.isEmpty, "\(result)")
        #expect(result.standardError.hasPrefix("\(name): unknown option '--verison'"), "\(result)")
        #expect(result.standardError.contains("did you mean '--version'?"), "\(result)")
    }
}
