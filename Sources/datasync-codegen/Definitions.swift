import Foundation
import JSONCore

// The class-definition model and its parser. The rules are the emulator's (`ClassDraft` and
// `ClassRegistry.resolveDraft` in Sources/DataSyncEmulator/Classes, `defineClasses` in
// Engine+Documents.swift) so that a file the generator accepts is one `datasync-emulator --classes`
// accepts, and an error is reported at the same JSON pointer. CodegenTests checks the two agree.

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
    static let entityFields: Set<String> = ["name", "level", "extends", "ttlDays", "eventsEnabled", "versions"]
    static let relationshipFields = entityFields.union(["cardinality", "entityAClass", "entityBClass"])
    static let relationshipOnlyFields: Set<String> = ["cardinality", "entityAClass", "entityBClass"]
    static let builtInPropertyNames: Set<String> = ["id", "createdAt", "updatedAt", "status", "eTag", "expiresAt"]
    static let types: Set<String> = ["string", "number", "integer", "boolean", "object", "array"]
    static let modes: Set<String> = ["none", "simple", "full"]
    static let cardinalities: Set<String> = ["one-to-one", "one-to-many", "many-to-many"]

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

    // MARK: One class (ClassDraft.init)

    static func draft(kind: ClassKind, json: JSONValue, path: String) throws(DefinitionError) -> ClassDefinition {
        guard let object = json.objectValue else { throw .invalid("a class definition must be an object", path) }
        let allowed = kind == .entity ? entityFields : relationshipFields
        for key in object.keys.sorted() where !allowed.contains(key) {
            throw .invalid("unknown field '\(key)'", path + "/" + escape(key))
        }
        guard let name = object["name"]?.stringValue else { throw .missing(path + "/name") }
        try checkName(name, path + "/name")
        if let level = object["level"], !level.isNull, level.stringValue != "SubKey" {
            throw .invalid("custom classes are defined at level SubKey", path + "/level")
        }
        let parent = try reference(object["extends"], path + "/extends")
        var ttlDays: Int? = kind == .entity ? 31 : nil
        if let ttl = object["ttlDays"], !ttl.isNull {
            guard let days = ttl.intValue, days >= 1, days <= 36_500 else {
                throw .invalid("ttlDays must be an integer from 1 to 36500", path + "/ttlDays")
            }
            ttlDays = days
        }
        var eventsEnabled = false
        if let events = object["eventsEnabled"], !events.isNull {
            guard let flag = events.boolValue else { throw .invalid("must be a boolean", path + "/eventsEnabled") }
            eventsEnabled = flag
        }
        guard let versionList = object["versions"]?.arrayValue, !versionList.isEmpty else {
            throw .invalid("a class needs at least one version", path + "/versions")
        }
        var versions: [VersionDefinition] = []
        for (index, item) in versionList.enumerated() {
            let version = try self.version(item, owner: name, path: path + "/versions/\(index)")
            if versions.contains(where: { $0.version == version.version }) {
                throw .invalid("duplicate version \(version.version)", path + "/versions/\(index)/version")
            }
            versions.append(version)
        }
        versions.sort { $0.version < $1.version }
        var cardinality: String?
        var entityA: ClassReference?
        var entityB: ClassReference?
        if kind == .relationship {
            cardinality = "many-to-many"
            if let value = object["cardinality"], !value.isNull {
                guard let text = value.stringValue, cardinalities.contains(text) else {
                    throw .invalid(
                        "cardinality must be one-to-one, one-to-many or many-to-many", path + "/cardinality")
                }
                cardinality = text
            }
            entityA = try reference(object["entityAClass"], path + "/entityAClass")
            entityB = try reference(object["entityBClass"], path + "/entityBClass")
        }
        return ClassDefinition(
            kind: kind, name: name, level: "SubKey", parent: parent, ttlDays: ttlDays, eventsEnabled: eventsEnabled,
            versions: versions, cardinality: cardinality, entityAClass: entityA, entityBClass: entityB, source: path)
    }

    static func checkName(_ name: String, _ path: String) throws(DefinitionError) {
        guard !name.isEmpty, name.count <= 100, let first = name.unicodeScalars.first,
            first.properties.isAlphabetic || first == "_",
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || $0 == "_" || ("0"..."9").contains($0))
            })
        else {
            throw .invalid("a name is 1 to 100 ASCII letters, digits or '_', starting with a letter or '_'", path)
        }
    }

    static func reference(_ value: JSONValue?, _ path: String) throws(DefinitionError) -> ClassReference? {
        guard let value, !value.isNull else { return nil }
        if let name = value.stringValue { return ClassReference(name: name, level: nil) }
        guard let object = value.objectValue, let name = object["name"]?.stringValue else {
            throw .invalid("expected a class name or {\"name\",\"level\"}", path)
        }
        return ClassReference(name: name, level: object["level"]?.stringValue)
    }

    static func version(_ json: JSONValue, owner: String, path: String) throws(DefinitionError) -> VersionDefinition {
        guard let object = json.objectValue else { throw .invalid("a version must be an object", path) }
        for key in object.keys.sorted() where !["version", "properties", "projections"].contains(key) {
            throw .invalid("unknown field '\(key)'", path + "/" + escape(key))
        }
        guard let number = object["version"]?.intValue, number >= 1 else {
            throw .invalid("version must be a positive integer", path + "/version")
        }
        var properties: [PropertyDefinition] = []
        for (index, item) in (object["properties"]?.arrayValue ?? []).enumerated() {
            let itemPath = path + "/properties/\(index)"
            guard let fields = item.objectValue else { throw .invalid("a property must be an object", itemPath) }
            for key in fields.keys.sorted() where !["name", "pointer", "type", "filtering"].contains(key) {
                throw .invalid("unknown field '\(key)'", itemPath + "/" + escape(key))
            }
            guard let name = fields["name"]?.stringValue else { throw .missing(itemPath + "/name") }
            try checkName(name, itemPath + "/name")
            if builtInPropertyNames.contains(name) {
                throw .invalid("'\(name)' is a built-in property name", itemPath + "/name")
            }
            if properties.contains(where: { $0.name == name }) {
                throw .invalid("duplicate property '\(name)'", itemPath + "/name")
            }
            guard let pointer = fields["pointer"]?.stringValue else { throw .missing(itemPath + "/pointer") }
            guard pointer == "/status" || (pointer.hasPrefix("/payload/") && pointer.count > 9) else {
                throw .invalid("pointer must be /status or /payload/...", itemPath + "/pointer")
            }
            guard let type = fields["type"]?.stringValue, types.contains(type) else {
                throw .invalid("type must be string, number, integer, boolean, object or array", itemPath + "/type")
            }
            var filtering = "none"
            if let mode = fields["filtering"], !mode.isNull {
                guard let text = mode.stringValue, modes.contains(text) else {
                    throw .invalid("filtering must be none, simple or full", itemPath + "/filtering")
                }
                filtering = text
            }
            properties.append(
                PropertyDefinition(
                    name: name, pointer: pointer, type: type, filtering: filtering, declaredIn: owner, source: itemPath)
            )
        }
        var projections: [ProjectionDefinition] = []
        for (index, item) in (object["projections"]?.arrayValue ?? []).enumerated() {
            let itemPath = path + "/projections/\(index)"
            guard let name = item["name"]?.stringValue, !name.isEmpty else { throw .missing(itemPath + "/name") }
            guard let pointers = item["pointers"]?.arrayValue?.compactMap(\.stringValue) else {
                throw .missing(itemPath + "/pointers")
            }
            projections.append(ProjectionDefinition(name: name, pointers: pointers))
        }
        return VersionDefinition(version: number, properties: properties, projections: projections, source: path)
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
