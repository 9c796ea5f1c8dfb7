import BuildInfo
import Foundation

/// What an executable does after parsing its arguments with ``ArgumentParser/resolve(_:program:)``.
package enum ToolResolution<Action: Sendable>: Sendable {
    /// Run `command` with `arguments`.
    case run(Command<Action>, ParsedArguments)
    /// Help or version was printed, or a usage error was: exit with this status.
    case exit(Int32)
}

extension ArgumentParser {
    /// A parser for one executable, with `--version` printing `program` and the package version.
    package static func tool(_ root: Command<Action>, globalOptions: [OptionSpec] = []) -> ArgumentParser {
        ArgumentParser(root: root, globalOptions: globalOptions, version: PackageVersion.line(for: root.name))
    }

    /// Parses `arguments` the way every executable of the package answers them: help and the
    /// version on standard output (status 0), a usage error on standard error prefixed with
    /// `program:`, with its did-you-mean and the usage line (status 2).
    package func resolve(_ arguments: [String], program: String) -> ToolResolution<Action> {
        do throws(UsageError) {
            switch try parse(arguments) {
            case .run(let command, let parsed):
                return .run(command, parsed)
            case .help(let path):
                StandardStreams.out(help(path))
                return .exit(ExitStatus.ok)
            case .version:
                StandardStreams.out(version ?? PackageVersion.line(for: program))
                return .exit(ExitStatus.ok)
            }
        } catch {
            StandardStreams.err("\(program): \(error.description)")
            return .exit(ExitStatus.usage)
        }
    }
}

/// Whole lines to standard output and standard error, unbuffered, so a message is never lost
/// when the process exits right after it and the two streams never reorder.
package enum StandardStreams {
    package static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    package static func err(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
