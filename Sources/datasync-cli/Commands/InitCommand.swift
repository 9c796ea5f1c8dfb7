import ArgumentParsing
import DataSyncEmulator
import Foundation

/// `init`: writes the emulator's config file (Documentation/Emulator.md, "Config file").
enum InitCommand {
    static var command: Command<CommandAction> {
        Command(
            name: "init", summary: "writes an emulator config file (datasync.json) to edit",
            discussion:
                "The file holds the emulator's port, keys, extra keysets, access control, class and seed files and "
                + "state file, as JSON; 'datasync emulator' and 'datasync-emulator' read ./datasync.json when it "
                + "exists (or the file named by --config), and any flag given overrides it. Relative paths in it are "
                + "relative to the file.",
            options: [
                .value("--file", "PATH", help: "where to write it (default ./datasync.json)"),
                .flag("--force", help: "replace a file that exists"),
            ],
            examples: ["datasync init && datasync emulator", "datasync init --file emulator.json --force"],
            action: { invocation in
                let path = invocation.arguments.value("--file") ?? EmulatorConfigFile.defaultName
                if FileManager.default.fileExists(atPath: path), !invocation.arguments.flag("--force") {
                    throw UsageError(
                        "\(path) exists; pass --force to replace it", kind: .invalidValue, option: "--force",
                        command: invocation.arguments.commandName)
                }
                do {
                    try Data(EmulatorConfigFile.template().utf8).write(to: URL(fileURLWithPath: path))
                } catch {
                    throw InitFailure(description: "cannot write \(path): \(error.localizedDescription)")
                }
                invocation.console.out(path)
                invocation.note("wrote \(path); edit it, then run 'datasync emulator' in this directory")
                return ExitStatus.ok
            })
    }
}

/// The config file could not be written.
struct InitFailure: Error, CustomStringConvertible {
    var description: String
}
