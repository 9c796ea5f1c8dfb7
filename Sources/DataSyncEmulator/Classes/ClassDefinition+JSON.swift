import ClassDocumentFormat
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
    /// Parses a definition through the shared `ClassDocument` format (the code generator reads
    /// definitions the same way); `path` is the RFC 6901 pointer of `json` in the request or file,
    /// used in error paths.
    init(kind: ClassKind, json: JSONValue, path: String) throws(APIError) {
        let draft: ClassDocument.Draft
        do {
            draft = try ClassDocument.draft(kind: kind == .entity ? .entity : .relationship, json: json, path: path)
        } catch {
            switch error.reason {
            case .invalid(let message): throw .invalid(message, path: error.pointer)
            case .missing: throw .missing(error.pointer)
            }
        }
        self.kind = kind
        name = draft.name
        parent = draft.parent.map(ClassReference.init)
        ttlDays = draft.ttlDays
        eventsEnabled = draft.eventsEnabled
        versions = draft.versions.map { version in
            ClassVersionDefinition(
                version: version.version,
                properties: version.properties.map {
                    PropertyDefinition(
                        name: $0.name, pointer: $0.pointer, type: PropertyType(rawValue: $0.type),
                        filtering: FilterMode(rawValue: $0.filtering))
                },
                projections: version.projections.map { ProjectionDefinition(name: $0.name, pointers: $0.pointers) })
        }
        cardinality = draft.cardinality.map(Cardinality.init(rawValue:))
        entityAClass = draft.entityAClass.map(ClassReference.init)
        entityBClass = draft.entityBClass.map(ClassReference.init)
    }
}

extension ClassReference {
    init(_ reference: ClassDocument.Reference) {
        self.init(name: reference.name, level: reference.level.map(ClassLevel.init(rawValue:)))
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
