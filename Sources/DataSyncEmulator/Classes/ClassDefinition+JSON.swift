import Foundation
import JSONCore

/// A class name as written in a definition, with the level when the writer gave one.
struct ClassReference: Hashable, Sendable {
    var name: String
    var level: ClassLevel?
}

/// A class definition as parsed from JSON, before its references are resolved in a keyset.
struct ClassDraft: Sendable {
    var kind: ClassKind
    var name: String
    var parent: ClassReference?
    var ttlDays: Int?
    var eventsEnabled: Bool
    var versions: [ClassVersionDefinition]
    var cardinality: Cardinality?
    var entityAClass: ClassReference?
    var entityBClass: ClassReference?
}

extension ClassDraft {
    private static let entityFields: Set<String> = ["name", "level", "extends", "ttlDays", "eventsEnabled", "versions"]
    private static let relationshipFields = entityFields.union(["cardinality", "entityAClass", "entityBClass"])

    /// Parses a definition; `path` is the RFC 6901 pointer of `json` in the request or file, used
    /// in error paths.
    init(kind: ClassKind, json: JSONValue, path: String) throws(APIError) {
        guard let object = json.objectValue else { throw .invalid("a class definition must be an object", path: path) }
        let allowed = kind == .entity ? Self.entityFields : Self.relationshipFields
        for key in object.keys.sorted() where !allowed.contains(key) {
            throw .invalid("unknown field '\(key)'", path: path + "/" + escape(key))
        }
        guard let name = object["name"]?.stringValue else { throw .missing(path + "/name") }
        try Self.checkName(name, path: path + "/name")
        self.kind = kind
        self.name = name
        if let level = object["level"], !level.isNull {
            guard level.stringValue == ClassLevel.subKey.rawValue else {
                throw .invalid("custom classes are defined at level SubKey", path: path + "/level")
            }
        }
        parent = try Self.reference(object["extends"], path: path + "/extends")
        if let ttl = object["ttlDays"], !ttl.isNull {
            guard let days = ttl.intValue, days >= 1, days <= 36_500 else {
                throw .invalid("ttlDays must be an integer from 1 to 36500", path: path + "/ttlDays")
            }
            ttlDays = days
        } else {
            ttlDays = kind == .entity ? 31 : nil
        }
        if let events = object["eventsEnabled"], !events.isNull {
            guard let flag = events.boolValue else {
                throw .invalid("must be a boolean", path: path + "/eventsEnabled")
            }
            eventsEnabled = flag
        } else {
            eventsEnabled = false
        }
        guard let versionList = object["versions"]?.arrayValue, !versionList.isEmpty else {
            throw .invalid("a class needs at least one version", path: path + "/versions")
        }
        var versions: [ClassVersionDefinition] = []
        for (index, item) in versionList.enumerated() {
            let version = try Self.version(item, path: path + "/versions/\(index)")
            if versions.contains(where: { $0.version == version.version }) {
                throw .invalid("duplicate version \(version.version)", path: path + "/versions/\(index)/version")
            }
            versions.append(version)
        }
        self.versions = versions.sorted { $0.version < $1.version }
        if kind == .relationship {
            if let value = object["cardinality"], !value.isNull {
                let cardinality = Cardinality(rawValue: value.stringValue ?? "")
                guard [.oneToOne, .oneToMany, .manyToMany].contains(cardinality) else {
                    throw .invalid(
                        "cardinality must be one-to-one, one-to-many or many-to-many", path: path + "/cardinality")
                }
                self.cardinality = cardinality
            } else {
                cardinality = .manyToMany
            }
            entityAClass = try Self.reference(object["entityAClass"], path: path + "/entityAClass")
            entityBClass = try Self.reference(object["entityBClass"], path: path + "/entityBClass")
        }
    }

    private static func checkName(_ name: String, path: String) throws(APIError) {
        guard !name.isEmpty, name.count <= 100, let first = name.unicodeScalars.first,
            first.properties.isAlphabetic || first == "_",
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || $0 == "_" || ("0"..."9").contains($0))
            })
        else {
            throw .invalid("a name is 1 to 100 ASCII letters, digits or '_', starting with a letter or '_'", path: path)
        }
    }

    private static func reference(_ value: JSONValue?, path: String) throws(APIError) -> ClassReference? {
        guard let value, !value.isNull else { return nil }
        if let name = value.stringValue { return ClassReference(name: name, level: nil) }
        guard let object = value.objectValue, let name = object["name"]?.stringValue else {
            throw .invalid("expected a class name or {\"name\",\"level\"}", path: path)
        }
        let level = object["level"]?.stringValue.map(ClassLevel.init(rawValue:))
        return ClassReference(name: name, level: level)
    }

    private static let builtInPropertyNames: Set<String> = [
        "id", "createdAt", "updatedAt", "status", "eTag", "expiresAt",
    ]

    private static func version(_ json: JSONValue, path: String) throws(APIError) -> ClassVersionDefinition {
        guard let object = json.objectValue else { throw .invalid("a version must be an object", path: path) }
        for key in object.keys.sorted() where !["version", "properties", "projections"].contains(key) {
            throw .invalid("unknown field '\(key)'", path: path + "/" + escape(key))
        }
        guard let number = object["version"]?.intValue, number >= 1 else {
            throw .invalid("version must be a positive integer", path: path + "/version")
        }
        var properties: [PropertyDefinition] = []
        for (index, item) in (object["properties"]?.arrayValue ?? []).enumerated() {
            let itemPath = path + "/properties/\(index)"
            guard let fields = item.objectValue else { throw .invalid("a property must be an object", path: itemPath) }
            for key in fields.keys.sorted() where !["name", "pointer", "type", "filtering"].contains(key) {
                throw .invalid("unknown field '\(key)'", path: itemPath + "/" + escape(key))
            }
            guard let name = fields["name"]?.stringValue else { throw .missing(itemPath + "/name") }
            try checkName(name, path: itemPath + "/name")
            if builtInPropertyNames.contains(name) {
                throw .invalid("'\(name)' is a built-in property name", path: itemPath + "/name")
            }
            if properties.contains(where: { $0.name == name }) {
                throw .invalid("duplicate property '\(name)'", path: itemPath + "/name")
            }
            guard let pointer = fields["pointer"]?.stringValue else { throw .missing(itemPath + "/pointer") }
            guard pointer == "/status" || (pointer.hasPrefix("/payload/") && pointer.count > 9) else {
                throw .invalid("pointer must be /status or /payload/...", path: itemPath + "/pointer")
            }
            guard let typeName = fields["type"]?.stringValue,
                PropertyType.known.contains(PropertyType(rawValue: typeName))
            else {
                throw .invalid(
                    "type must be string, number, integer, boolean, object or array", path: itemPath + "/type")
            }
            var filtering = FilterMode.none
            if let mode = fields["filtering"], !mode.isNull {
                filtering = FilterMode(rawValue: mode.stringValue ?? "")
                guard [.none, .simple, .full].contains(filtering) else {
                    throw .invalid("filtering must be none, simple or full", path: itemPath + "/filtering")
                }
            }
            properties.append(
                PropertyDefinition(
                    name: name, pointer: pointer, type: PropertyType(rawValue: typeName), filtering: filtering))
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
        return ClassVersionDefinition(version: number, properties: properties, projections: projections)
    }
}

/// Escapes a key as an RFC 6901 reference token.
func escape(_ key: String) -> String {
    key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
}

extension ClassDefinition {
    /// The wire and file form of a class (the same shape the class endpoints accept).
    var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(name), "level": .string(level.rawValue), "eventsEnabled": .bool(eventsEnabled),
            "builtIn": .bool(isBuiltIn),
            "versions": .array(
                versions.map { version in
                    [
                        "version": .int(Int64(version.version)),
                        "properties": .array(
                            version.properties.map {
                                [
                                    "name": .string($0.name), "pointer": .string($0.pointer),
                                    "type": .string($0.type.rawValue), "filtering": .string($0.filtering.rawValue),
                                ]
                            }),
                        "projections": .array(
                            version.projections.map {
                                ["name": .string($0.name), "pointers": .array($0.pointers.map(JSONValue.string))]
                            }),
                    ]
                }),
        ]
        if let parent { object["extends"] = parent.jsonValue }
        if let ttlDays { object["ttlDays"] = .int(Int64(ttlDays)) }
        if kind == .relationship {
            object["cardinality"] = .string((cardinality ?? .manyToMany).rawValue)
            if let entityAClass { object["entityAClass"] = entityAClass.jsonValue }
            if let entityBClass { object["entityBClass"] = entityBClass.jsonValue }
        }
        return .object(object)
    }
}
