import ArgumentParsing
import DataSyncTestSupport
import Foundation
import Testing

@testable import datasync_cli

@Suite("datasync completions bash|zsh|fish", .timeLimit(.minutes(2)))
struct CompletionTests {
    /// Every command name of the tree, at every level.
    static let commandNames: Set<String> = {
        var names = Set<String>()
        func walk(_ command: Command<CommandAction>) {
            for child in command.subcommands {
                names.insert(child.name)
                walk(child)
            }
        }
        walk(DataSyncCLI.rootCommand())
        return names
    }()

    @Test("each script names every command, and the options of a leaf command", arguments: ["bash", "zsh", "fish"])
    func namesEverything(_ shell: String) async throws {
        let result = try await CLIEnvironment.run(["completions", shell])
        try #require(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(Self.commandNames.count > 20)
        let words = Set(
            result.stdout.split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init))
        for name in Self.commandNames {
            #expect(words.contains(name), "\(shell) script lacks the command \(name)")
        }
        // A leaf's own option, a global one, an option value with choices, the emulator's flags.
        for word in ["class-version", "subscribe-key", "ndjson", "state-file"] {
            #expect(result.stdout.contains(word), "\(shell) script lacks \(word)")
        }
    }

    @Test("the shells on this machine parse the scripts without running them", arguments: ["bash", "zsh", "fish"])
    func parses(_ shell: String) async throws {
        let path = ["/bin/", "/usr/bin/", "/usr/local/bin/"].map { $0 + shell }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let path else {
            // Only bash is required (it is on every CI image); zsh and fish are checked where present.
            #expect(shell != "bash", "bash is not installed")
            return
        }
        let script = try await CLIEnvironment.run(["completions", shell])
        try #require(script.status == 0, "\(script)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "datasync-completion-\(UUID()).\(shell)")
        try Data(script.stdout.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = try await ChildProcess(executable: path, arguments: ["-n", file.path]).finish(timeout: .seconds(30))
        #expect(check.status == 0, "\(shell) -n: \(check)")
    }

    @Test("bash completes a command, an option and an option's value from the script")
    func bashCompletes() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else {
            Issue.record("bash is not installed")
            return
        }
        let script = try await CLIEnvironment.run(["completions", "bash"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("datasync-completion-\(UUID()).bash")
        try Data(script.stdout.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func complete(_ words: [String]) async throws -> [String] {
            let line = words.map { "'\($0)'" }.joined(separator: " ")
            let program = """
                source "$0"
                COMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1)
                _datasync
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let run = try await ChildProcess(executable: "/bin/bash", arguments: ["-c", program, file.path]).finish(
                timeout: .seconds(30))
            return run.standardOutput.split(separator: "\n").map(String.init)
        }
        #expect(try await complete(["datasync", "us"]) == ["users"])
        #expect(try await complete(["datasync", "users", "cr"]) == ["create"])
        #expect(try await complete(["datasync", "users", "create", "--class-v"]) == ["--class-version"])
        #expect(try await complete(["datasync", "watch", "a", "--format", ""]).sorted() == ["human", "ndjson"])
    }

    @Test("an unknown shell is a usage error with a suggestion")
    func unknownShell() async throws {
        let result = try await CLIEnvironment.run(["completions", "bsh"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("unknown shell 'bsh'"), "\(result)")
        #expect(result.stderr.contains("did you mean 'bash'?"), "\(result)")
    }
}
