// The command plugin: `swift package datasync-codegen [--target NAME]... [--source] [FILE...]`
// validates class-definition files and prints what would be generated. See Plugins/README.md.
import Foundation
import PackagePlugin

@main
struct DataSyncCodegenCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let printSource = extractor.extractFlag(named: "source") > 0
        let explicitFiles = extractor.remainingArguments.filter { !$0.hasPrefix("-") }

        // One group per target (the build generates per target, so names only clash within one),
        // or the files named on the command line as one group.
        var groups: [(name: String, files: [URL], access: String)] = []
        if !explicitFiles.isEmpty {
            groups.append(("the named files", explicitFiles.map { URL(fileURLWithPath: $0) }, "internal"))
        } else {
            let targets =
                targetNames.isEmpty ? context.package.targets : try context.package.targets(named: targetNames)
            for case let target as SourceModuleTarget in targets {
                let urls = target.sourceFiles.map(\.url)
                let files = urls.filter { $0.lastPathComponent.hasSuffix(".datasync.json") }.sorted {
                    $0.path < $1.path
                }
                guard !files.isEmpty else { continue }
                groups.append((target.name, files, Self.access(in: urls)))
            }
        }
        guard !groups.isEmpty else {
            print("no *.datasync.json files\(targetNames.isEmpty ? " in this package" : " in \(targetNames)")")
            return
        }
        let tool = try context.tool(named: "datasync-codegen")
        var failures: [String] = []
        for group in groups {
            print("== \(group.name)")
            var toolArguments = ["check", "--access", group.access]
            if printSource { toolArguments.append("--source") }
            toolArguments += group.files.map { $0.path(percentEncoded: false) }
            let process = Process()
            process.executableURL = tool.url
            process.arguments = toolArguments
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { failures.append(group.name) }
        }
        if !failures.isEmpty {
            Diagnostics.error("invalid class definitions in \(failures.joined(separator: ", ")) (listed above)")
            throw CommandError.invalidDefinitions
        }
    }

    /// `internal` unless the target's `datasync-codegen.json` says `"access": "public"` (the
    /// build-tool plugin's rule).
    static func access(in files: [URL]) -> String {
        guard let url = files.first(where: { $0.lastPathComponent == "datasync-codegen.json" }),
            let data = try? Data(contentsOf: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let access = object["access"] as? String
        else { return "internal" }
        return access
    }

    enum CommandError: Error { case invalidDefinitions }
}
