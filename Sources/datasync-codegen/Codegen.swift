import Foundation

/// One definition file's outcome: its models, or the error that stopped it.
struct FileResult {
    var path: String
    var bytes: [UInt8]
    var models: Result<[ClassModel], DefinitionError>

    /// `path:line:column: error: pointer: message`, the form compilers and IDEs read.
    func diagnostic(_ error: DefinitionError) -> String {
        let location = JSONLocator(bytes: bytes).location(of: error.pointer)
        return "\(path):\(location.line):\(location.column): error: \(error)"
    }
}

/// The generator's work, independent of the command line.
enum Codegen {
    /// Parses and models every file; a Swift name used by classes of two files is an error in the
    /// later one.
    static func load(_ files: [(path: String, bytes: [UInt8])]) -> [FileResult] {
        var results: [FileResult] = []
        var owners: [String: String] = [:]  // Swift type name -> file that claimed it
        for file in files {
            do throws(DefinitionError) {
                let document = try DefinitionParser.parse(file.bytes)
                let models = try ModelBuilder.models(document)
                for model in models {
                    if let owner = owners[model.typeName] {
                        throw DefinitionError.invalid(
                            "the Swift name \(model.typeName) is already generated from \(owner); one target cannot"
                                + " hold both", model.definition.source + "/name")
                    }
                }
                for model in models { owners[model.typeName] = displayName(file.path) }
                results.append(FileResult(path: file.path, bytes: file.bytes, models: .success(models)))
            } catch {
                results.append(FileResult(path: file.path, bytes: file.bytes, models: .failure(error)))
            }
        }
        return results
    }

    /// The file name without its directory, as generated sources mention it.
    static func displayName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The generated Swift source for one file.
    static func source(_ models: [ClassModel], path: String, isPublic: Bool) -> String {
        Emitter.source(for: models, fileName: displayName(path), isPublic: isPublic)
    }

    /// What would be generated, in a few lines per class (the command plugin prints this).
    static func summary(_ models: [ClassModel]) -> String {
        var lines: [String] = []
        for model in models {
            let definition = model.definition
            var head = "\(model.typeName): \(definition.kind.rawValue) class \"\(definition.name)\""
            if let parent = definition.parent { head += " extends \(parent.name)" }
            head += ", versions \(model.versions.map { String($0.number) }.joined(separator: ", "))"
            head += " (latest \(model.latest.number)); list with \(model.listCall)"
            lines.append(head)
            for version in model.versions {
                lines.append("  V\(version.number)")
                lines.append("    Payload: " + payloadSummary(version.payload))
                func names(_ fast: Bool) -> String {
                    version.filterable(fast: fast).map(\.name).joined(separator: ", ")
                }
                lines.append("    Filters, Sort (filter): " + names(false))
                lines.append("    FastFilters, FastSort (filterFast): " + names(true))
                let unfilterable = version.properties.filter { $0.filtering == "none" }.map(\.name)
                if !unfilterable.isEmpty {
                    lines.append("    not filterable (none): " + unfilterable.joined(separator: ", "))
                }
                let projections = version.projections.map(\.name)
                lines.append("    Projections: " + (projections.isEmpty ? "none" : projections.joined(separator: ", ")))
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func payloadSummary(_ node: PayloadNode) -> String {
        guard !node.children.isEmpty else { return "{}" }
        return "{ "
            + node.children.map { child in
                if child.opaque { return child.key + ": JSONValue" }
                if !child.children.isEmpty { return child.key + ": " + payloadSummary(child) }
                return child.key + ": " + (child.type ?? "?")
            }.joined(separator: ", ") + " }"
    }
}
