import ClassDocumentFormat
import Foundation
import JSONCore

// The class-definition model and its parser. One class is parsed by the shared `ClassDocument`
// format (Sources/ClassDocumentFormat), which the emulator's `ClassDraft` reads too; the document
// walk and the reference rules follow the emulator's (`ClassDocuments.forEachDraft`,
// `ClassRegistry.resolveDraft` in Sources/DataSyncEmulator/Classes), so that a file the generator
// accepts is one `datasync-emulator --classes` accepts, and an error is reported at the same JSON
// pointer. CodegenTests checks the two agree.

/// A problem in a definition file: the RFC 6901 pointer of the offending value and what is wrong.
struct DefinitionError: Error, Equatable, CustomStringConvertible {
    /// The pointer of the value at fault; for a missing field, where it should be.
    var pointer: String
    var message: String

    var description: String { "\(pointer.isEmpty ? "/" : pointer): \(message)" }

    static func invalid(_ message: String, _ pointer: String) -> DefinitionError {
        DefinitionError(pointer: pointer, message: message)
    }

    static func missing(_ pointer: String) -> DefinitionError {
        DefinitionError(pointer: pointer, message: "is required")
    }
}

/// Entity classes (users, channels, entities) or relationship classes (memberships, relationships).
enum ClassKind: String, Sendable {
    case entity
    case relationship
}

/// A class named by `extends`, `entityAClass` or `entityBClass`.
struct ClassReference: Hashable, Sendable {
    var name: String
    /// `Global` or `SubKey` when the writer gave one.
    var level: String?
}

extension ClassReference {
    init(_ reference: ClassDocument.Reference) { self.init(name: reference.name, level: reference.level) }
}

/// One declared property.
struct PropertyDefinition: Hashable, Sendable {
    var name: String
    /// `/status` or `/payload/...`.
    var pointer: String
    /// `string`, `number`, `integer`, `boolean`, `object` or `array`.
    var type: String
    /// `none`, `simple` or `full`.
    var filtering: String
    /// Where the property is declared: the class's name (for inherited ones, the ancestor's) and
    /// the pointer of the declaration in its file (empty for the built-ins).
    var declaredIn: String
    var source: String
}

/// A named projection.
struct ProjectionDefinition: Hashable, Sendable {
    var name: String
    var pointers: [String]
}

/// One version of a class.
struct VersionDefinition: Hashable, Sendable {
    var version: Int
    var properties: [PropertyDefinition]
    var projections: [ProjectionDefinition]
    /// The pointer of the version object.
    var source: String
}

/// A class as written in a definition file, its references resolved.
struct ClassDefinition: Hashable, Sendable {
    var kind: ClassKind
    var name: String
    /// `SubKey` for every class of a file; `Global` for the built-ins.
    var level: String
    var parent: ClassReference?
    var ttlDays: Int?
    var eventsEnabled: Bool
    var versions: [VersionDefinition]
    var cardinality: String?
    var entityAClass: ClassReference?
    var entityBClass: ClassReference?
    /// The pointer of the class object in its file (empty for the built-ins).
    var source: String

    var latestVersion: Int { versions.map(\.version).max() ?? 1 }

    func version(_ number: Int) -> VersionDefinition? { versions.first { $0.version == number } }

    var isBuiltIn: Bool { level == "Global" }

    /// `User`, `Channel` (`name` and `type`, strings, `full`) and `Membership`, as every keyset has
    /// them.
    static let builtIns: [ClassDefinition] = {
        func indexed(_ owner: String) -> [PropertyDefinition] {
            ["name", "type"].map {
                PropertyDefinition(
                    name: $0, pointer: "/payload/" + $0, type: "string", filtering: "full", declaredIn: owner,
                    source: "")
            }
        }
        func entity(_ name: String) -> ClassDefinition {
            ClassDefinition(
                kind: .entity, name: name, level: "Global", parent: nil, ttlDays: 30, eventsEnabled: true,
                versions: [VersionDefinition(version: 1, properties: indexed(name), projections: [], source: "")],
                cardinality: nil, entityAClass: nil, entityBClass: nil, source: "")
        }
        let membership = ClassDefinition(
            kind: .relationship, name: "Membership", level: "Global", parent: nil, ttlDays: nil, eventsEnabled: true,
            versions: [VersionDefinition(version: 1, properties: [], projections: [], source: "")],
            cardinality: "many-to-many", entityAClass: ClassReference(name: "Channel", level: "Global"),
            entityBClass: ClassReference(name: "User", level: "Global"), source: "")
        return [entity("User"), entity("Channel"), membership]
    }()
}

/// The classes of one definition file, in the order they are written.
struct DefinitionDocument: Sendable {
    var classes: [ClassDefinition]
}

/// Parses definition files.
///
/// Two shapes are accepted:
/// - the class document of `datasync-emulator --classes` and `Emulator.defineClasses`:
///   `{"entityClasses": [...], "relationshipClasses": [...]}`;
/// - the bodies of the class endpoints (`/entity-classes`, `/relationship-classes`): one class as
///   `{"data": {...}}` (a create or replace request, or the answer to reading one) or a list as
///   `{"data": [...]}` (the answer to listing them). The answer-only fields `builtIn` and `level`
///   are accepted; built-in classes (`builtIn: true` or `level: "Global"`) are skipped. A class
///   with `cardinality`, `entityAClass` or `entityBClass` is a relationship class, any other an
///   entity class (answers always carry `cardinality` for relationship classes).
enum DefinitionParser {
    static let relationshipOnlyFields: Set<String> = ["cardinality", "entityAClass", "entityBClass"]

    /// Parses the bytes of one file.
    static func parse(_ bytes: [UInt8]) throws(DefinitionError) -> DefinitionDocument {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch let error as JSONError {
            throw DefinitionError(pointer: "", message: "not valid JSON: \(error.message)")
        } catch {
            throw DefinitionError(pointer: "", message: "not valid JSON: \(error)")
        }
        return try parse(json)
    }

    static func parse(_ json: JSONValue) throws(DefinitionError) -> DefinitionDocument {
        guard let top = json.objectValue else { throw .invalid("the class document must be a JSON object", "") }
        var items: [(kind: ClassKind, json: JSONValue, path: String)] = []
        if let data = top["data"] {
            for key in top.keys.sorted() where key != "data" {
                throw .invalid("unknown field", "/" + escape(key))
            }
            func add(_ item: JSONValue, _ path: String) throws(DefinitionError) {
                guard var object = item.objectValue else {
                    throw .invalid("a class definition must be an object", path)
                }
                if let builtIn = object.removeValue(forKey: "builtIn"), !builtIn.isNull {
                    guard let flag = builtIn.boolValue else { throw .invalid("must be a boolean", path + "/builtIn") }
                    if flag { return }
                }
                if object["level"]?.stringValue == "Global" { return }
                let kind: ClassKind =
                    object.keys.contains(where: relationshipOnlyFields.contains) ? .relationship : .entity
                items.append((kind, .object(object), path))
            }
            if let list = data.arrayValue {
                for (index, item) in list.enumerated() { try add(item, "/data/\(index)") }
            } else {
                try add(data, "/data")
            }
        } else {
            for key in top.keys.sorted() where key != "entityClasses" && key != "relationshipClasses" {
                throw .invalid("unknown field", "/" + escape(key))
            }
            for kind in [ClassKind.entity, .relationship] {
                let field = kind == .entity ? "entityClasses" : "relationshipClasses"
                guard let list = top[field] else { continue }
                guard let array = list.arrayValue else { throw .invalid("must be an array", "/" + field) }
                for (index, item) in array.enumerated() { items.append((kind, item, "/\(field)/\(index)")) }
            }
        }
        var defined: [ClassDefinition] = []
        // An endpoint answer holds one kind of class: its relationship classes' sides name entity
        // classes that are elsewhere, so they are not looked up.
        let checksSides = top["data"] == nil
        for item in items {
            var definition = try draft(kind: item.kind, json: item.json, path: item.path)
            if defined.contains(where: { $0.kind == definition.kind && $0.name == definition.name }) {
                throw .invalid("class \(definition.name) is defined twice", item.path + "/name")
            }
            try resolve(&definition, among: defined, checksSides: checksSides, path: item.path)
            defined.append(definition)
        }
        return DefinitionDocument(classes: defined)
    }

    // MARK: One class (the shared ClassDocument format, which the emulator's ClassDraft reads too)

    static func draft(kind: ClassKind, json: JSONValue, path: String) throws(DefinitionError) -> ClassDefinition {
        let draft: ClassDocument.Draft
        do {
            draft = try ClassDocument.draft(kind: kind == .entity ? .entity : .relationship, json: json, path: path)
        } catch {
            switch error.reason {
            case .invalid(let message): throw .invalid(message, error.pointer)
            case .missing: throw .missing(error.pointer)
            }
        }
        let versions = draft.versions.map { version in
            VersionDefinition(
                version: version.version,
                properties: version.properties.map {
                    PropertyDefinition(
                        name: $0.name, pointer: $0.pointer, type: $0.type, filtering: $0.filtering,
                        declaredIn: draft.name, source: $0.path)
                },
                projections: version.projections.map { ProjectionDefinition(name: $0.name, pointers: $0.pointers) },
                source: version.path)
        }
        return ClassDefinition(
            kind: kind, name: draft.name, level: "SubKey", parent: draft.parent.map(ClassReference.init),
            ttlDays: draft.ttlDays, eventsEnabled: draft.eventsEnabled, versions: versions,
            cardinality: draft.cardinality, entityAClass: draft.entityAClass.map(ClassReference.init),
            entityBClass: draft.entityBClass.map(ClassReference.init), source: draft.path)
    }

    // MARK: References (ClassRegistry.resolveDraft)

    /// Finds a class by name: at `level` when given, otherwise SubKey (earlier in the file) first,
    /// then the Global built-ins.
    static func lookup(_ kind: ClassKind, _ reference: ClassReference, among defined: [ClassDefinition])
        -> ClassDefinition?
    {
        let subKey = defined.first { $0.kind == kind && $0.name == reference.name }
        let global = ClassDefinition.builtIns.first { $0.kind == kind && $0.name == reference.name }
        switch reference.level {
        case "SubKey": return subKey
        case "Global": return global
        case nil: return subKey ?? global
        default: return nil
        }
    }

    static func resolve(
        _ definition: inout ClassDefinition, among defined: [ClassDefinition], checksSides: Bool = true, path: String
    ) throws(DefinitionError) {
        if let reference = definition.parent {
            guard let found = lookup(definition.kind, reference, among: defined) else {
                throw .invalid("class definition not found: \(reference.name)", path + "/extends")
            }
            if definition.kind == .relationship,
                ancestry(of: found, among: defined).contains(ClassReference(name: "Membership", level: "Global"))
            {
                throw .invalid("Membership cannot be extended", path + "/extends")
            }
            definition.parent = ClassReference(name: found.name, level: found.level)
        }
        for field in ["entityAClass", "entityBClass"] where checksSides {
            let keyPath: WritableKeyPath<ClassDefinition, ClassReference?> =
                field == "entityAClass" ? \.entityAClass : \.entityBClass
            guard let reference = definition[keyPath: keyPath] else { continue }
            guard let found = lookup(.entity, reference, among: defined) else {
                throw .invalid("class definition not found: \(reference.name)", path + "/" + field)
            }
            definition[keyPath: keyPath] = ClassReference(name: found.name, level: found.level)
        }
    }

    /// `definition` and its ancestors, nearest first.
    static func ancestry(of definition: ClassDefinition, among defined: [ClassDefinition]) -> [ClassReference] {
        var names: [ClassReference] = []
        var current: ClassDefinition? = definition
        while let candidate = current, names.count < 64 {
            names.append(ClassReference(name: candidate.name, level: candidate.level))
            current = candidate.parent.flatMap { lookup(candidate.kind, $0, among: defined) }
        }
        return names
    }
}

/// Escapes a key as an RFC 6901 reference token.
func escape(_ key: String) -> String {
    key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
}

/// The reference tokens of an RFC 6901 pointer, unescaped.
func tokens(of pointer: String) -> [String] {
    guard pointer.hasPrefix("/") else { return [] }
    return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
        $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }
}
