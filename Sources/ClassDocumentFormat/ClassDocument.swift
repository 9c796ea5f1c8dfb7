import Foundation
package import JSONCore

/// The one parser of a class definition as written in a class document, a seed's classes, a state
/// file or a class endpoint's body. The emulator (`ClassDraft`) and the code generator
/// (`DefinitionParser`) both read definitions through it, so a file the generator accepts is one
/// the emulator accepts, refused at the same JSON pointer with the same message. Everything here
/// is neutral: names, levels, types and modes stay strings, and each side turns a draft into its
/// own model and a `ClassDocument.Failure` into its own error.
package enum ClassDocument {
    /// Entity classes (users, channels, entities) or relationship classes (memberships,
    /// relationships): the fields allowed and the defaults differ.
    package enum Kind: Sendable {
        case entity
        case relationship
    }

    /// Why a definition was refused, at the RFC 6901 pointer of the value at fault (for a missing
    /// field, where it should be).
    package struct Failure: Error, Equatable, Sendable {
        package enum Reason: Equatable, Sendable {
            /// The value is there and wrong; the message says how.
            case invalid(String)
            /// A required field is absent; each side words this itself.
            case missing
        }

        package var pointer: String
        package var reason: Reason

        static func invalid(_ message: String, _ pointer: String) -> Failure {
            Failure(pointer: pointer, reason: .invalid(message))
        }

        static func missing(_ pointer: String) -> Failure { Failure(pointer: pointer, reason: .missing) }
    }

    /// A class named by `extends`, `entityAClass` or `entityBClass`, not yet looked up.
    package struct Reference: Hashable, Sendable {
        package var name: String
        /// The level the writer gave (`Global`, `SubKey`, …), if any.
        package var level: String?
    }

    /// One declared property, its type and filtering mode checked against the known sets.
    package struct Property: Hashable, Sendable {
        package var name: String
        /// `/status` or `/payload/...`.
        package var pointer: String
        /// `string`, `number`, `integer`, `boolean`, `object` or `array`.
        package var type: String
        /// `none` (when not given), `simple` or `full`.
        package var filtering: String
        /// The pointer of the property's declaration in its document.
        package var path: String
    }

    /// A named projection.
    package struct Projection: Hashable, Sendable {
        package var name: String
        package var pointers: [String]
    }

    /// One version of a class.
    package struct Version: Hashable, Sendable {
        package var version: Int
        package var properties: [Property]
        package var projections: [Projection]
        /// The pointer of the version object.
        package var path: String
    }

    /// One class as written, with the defaults filled in, before its references are resolved.
    package struct Draft: Hashable, Sendable {
        package var kind: Kind
        package var name: String
        package var parent: Reference?
        /// 31 for an entity class that names none; nil for a relationship class that names none.
        package var ttlDays: Int?
        package var eventsEnabled: Bool
        /// Sorted by version number.
        package var versions: [Version]
        /// `one-to-one`, `one-to-many` or `many-to-many` (the default) for a relationship class;
        /// nil for an entity class.
        package var cardinality: String?
        package var entityAClass: Reference?
        package var entityBClass: Reference?
        /// The pointer of the class object.
        package var path: String
    }

    static let entityFields: Set<String> = ["name", "level", "extends", "ttlDays", "eventsEnabled", "versions"]
    static let relationshipFields = entityFields.union(["cardinality", "entityAClass", "entityBClass"])
    static let builtInPropertyNames: Set<String> = ["id", "createdAt", "updatedAt", "status", "eTag", "expiresAt"]
    static let types: Set<String> = ["string", "number", "integer", "boolean", "object", "array"]
    static let modes: Set<String> = ["none", "simple", "full"]
    static let cardinalities: Set<String> = ["one-to-one", "one-to-many", "many-to-many"]

    /// Parses one class definition; `path` is the pointer of `json` in its document, the prefix of
    /// every pointer in a failure and in the draft.
    package static func draft(kind: Kind, json: JSONValue, path: String) throws(Failure) -> Draft {
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
        var versions: [Version] = []
        for (index, item) in versionList.enumerated() {
            let version = try self.version(item, path: path + "/versions/\(index)")
            if versions.contains(where: { $0.version == version.version }) {
                throw .invalid("duplicate version \(version.version)", path + "/versions/\(index)/version")
            }
            versions.append(version)
        }
        versions.sort { $0.version < $1.version }
        var cardinality: String?
        var entityA: Reference?
        var entityB: Reference?
        if kind == .relationship {
            cardinality = "many-to-many"
            if let value = object["cardinality"], !value.isNull {
                guard let text = value.stringValue, cardinalities.contains(text) else {
                    throw .invalid("cardinality must be one-to-one, one-to-many or many-to-many", path + "/cardinality")
                }
                cardinality = text
            }
            entityA = try reference(object["entityAClass"], path + "/entityAClass")
            entityB = try reference(object["entityBClass"], path + "/entityBClass")
        }
        return Draft(
            kind: kind, name: name, parent: parent, ttlDays: ttlDays, eventsEnabled: eventsEnabled, versions: versions,
            cardinality: cardinality, entityAClass: entityA, entityBClass: entityB, path: path)
    }

    static func checkName(_ name: String, _ path: String) throws(Failure) {
        guard !name.isEmpty, name.count <= 100, let first = name.unicodeScalars.first,
            first.properties.isAlphabetic || first == "_",
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || $0 == "_" || ("0"..."9").contains($0))
            })
        else {
            throw .invalid("a name is 1 to 100 ASCII letters, digits or '_', starting with a letter or '_'", path)
        }
    }

    static func reference(_ value: JSONValue?, _ path: String) throws(Failure) -> Reference? {
        guard let value, !value.isNull else { return nil }
        if let name = value.stringValue { return Reference(name: name, level: nil) }
        guard let object = value.objectValue, let name = object["name"]?.stringValue else {
            throw .invalid("expected a class name or {\"name\",\"level\"}", path)
        }
        return Reference(name: name, level: object["level"]?.stringValue)
    }

    static func version(_ json: JSONValue, path: String) throws(Failure) -> Version {
        guard let object = json.objectValue else { throw .invalid("a version must be an object", path) }
        for key in object.keys.sorted() where !["version", "properties", "projections"].contains(key) {
            throw .invalid("unknown field '\(key)'", path + "/" + escape(key))
        }
        guard let number = object["version"]?.intValue, number >= 1 else {
            throw .invalid("version must be a positive integer", path + "/version")
        }
        var properties: [Property] = []
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
            properties.append(Property(name: name, pointer: pointer, type: type, filtering: filtering, path: itemPath))
        }
        var projections: [Projection] = []
        for (index, item) in (object["projections"]?.arrayValue ?? []).enumerated() {
            let itemPath = path + "/projections/\(index)"
            guard let name = item["name"]?.stringValue, !name.isEmpty else { throw .missing(itemPath + "/name") }
            guard let pointers = item["pointers"]?.arrayValue?.compactMap(\.stringValue) else {
                throw .missing(itemPath + "/pointers")
            }
            projections.append(Projection(name: name, pointers: pointers))
        }
        return Version(version: number, properties: properties, projections: projections, path: path)
    }

    /// Escapes a key as an RFC 6901 reference token.
    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
