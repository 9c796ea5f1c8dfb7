// The build-tool plugin: one `datasync-codegen generate` command per target that holds
// `*.datasync.json` class-definition files. See Plugins/README.md.
import Foundation
import PackagePlugin

@main
struct DataSyncCodegenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let inputs = DefinitionFiles.find(in: target.sourceFiles.map(\.url))
        guard !inputs.isEmpty else { return [] }
        let access = DefinitionFiles.access(in: target.sourceFiles.map(\.url))
        let outputDirectory = context.pluginWorkDirectoryURL.appending(path: "DataSync", directoryHint: .isDirectory)
        let outputs = DefinitionFiles.outputNames(for: inputs).map { outputDirectory.appending(path: $0) }
        var arguments = ["generate", "--access", access]
        for (input, output) in zip(inputs, outputs) {
            arguments += ["--input", input.path(percentEncoded: false), "--output", output.path(percentEncoded: false)]
        }
        var inputFiles = inputs
        if let settings = DefinitionFiles.settingsFile(in: target.sourceFiles.map(\.url)) {
            inputFiles.append(settings)
        }
        return [
            .buildCommand(
                displayName: "Generating DataSync types for \(target.name) from \(inputs.count) definition file(s)",
                executable: try context.tool(named: "datasync-codegen").url,
                arguments: arguments, inputFiles: inputFiles, outputFiles: outputs)
        ]
    }
}

/// The plugin's file conventions (the command plugin has a copy: plugins cannot share code).
enum DefinitionFiles {
    /// The suffix that marks a class-definition file.
    static let suffix = ".datasync.json"
    /// The optional settings file: `{"access": "public"}` makes the generated declarations public.
    static let settingsName = "datasync-codegen.json"

    /// The definition files among `files`, sorted by path so the command is the same every build.
    static func find(in files: [URL]) -> [URL] {
        files.filter { $0.lastPathComponent.hasSuffix(suffix) }.sorted { $0.path < $1.path }
    }

    static func settingsFile(in files: [URL]) -> URL? {
        files.first { $0.lastPathComponent == settingsName }
    }

    /// `internal` unless the settings file says `"access": "public"`.
    static func access(in files: [URL]) -> String {
        guard let url = settingsFile(in: files), let data = try? Data(contentsOf: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let access = object["access"] as? String
        else { return "internal" }
        return access
    }

    /// `Catalog.datasync.json` → `Catalog.datasync.swift`; a name used twice (files in two
    /// folders) gets `-2`, `-3`, … in path order.
    static func outputNames(for inputs: [URL]) -> [String] {
        var used: Set<String> = []
        return inputs.map { input in
            let stem = String(input.lastPathComponent.dropLast(suffix.count))
            var name = stem + ".datasync.swift"
            var counter = 2
            while used.contains(name) {
                name = "\(stem)-\(counter).datasync.swift"
                counter += 1
            }
            used.insert(name)
            return name
        }
    }
}
