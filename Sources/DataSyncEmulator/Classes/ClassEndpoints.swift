import EmulatorHTTP
import Foundation
import JSONCore

/// The class endpoints of one keyset: they change only the keyset's ``ClassRegistry`` (a class
/// still used by objects is refused), never an object.
enum ClassEndpoints {
    /// `/entity-classes` and `/relationship-classes`: list, read, create, replace, delete.
    static func handle(
        _ request: ServerRequest, method: String, keyset: Keyset, kind: ClassKind, name: String?,
        query: [(name: String, value: String)]
    ) throws(APIError) -> ServerResponse {
        let mediaType = "application/json"
        switch (method, name) {
        case ("GET", nil):
            let definitions = keyset.registry.classes(kind).values.sorted {
                ($0.level.rawValue, $0.name) < ($1.level.rawValue, $1.name)
            }
            return DataSyncResponse.data(.array(definitions.map(\.jsonValue)), mediaType: mediaType)
        case ("GET", let name?):
            let levels = query.filter { $0.name == "class_level" }.map { ClassLevel(rawValue: $0.value) }
            guard let found = keyset.registry.resolve(kind, name: name, level: levels.first) else {
                throw .notFound("class definition not found: \(name)")
            }
            return DataSyncResponse.data(found.jsonValue, mediaType: mediaType)
        case ("POST", nil):
            try RequestBody.checkJSONMediaType(request)
            let draft = try ClassDraft(kind: kind, json: .object(try RequestBody.dataObject(request)), path: "/data")
            let definition = try defineClass(keyset, draft, path: "/data")
            return DataSyncResponse.data(definition.jsonValue, status: 201, mediaType: mediaType)
        case ("PUT", let name?):
            try RequestBody.checkJSONMediaType(request)
            let draft = try ClassDraft(kind: kind, json: .object(try RequestBody.dataObject(request)), path: "/data")
            guard draft.name == name else { throw .invalid("the name cannot change", path: "/data/name") }
            let definition = try replaceClass(keyset, draft, path: "/data")
            return DataSyncResponse.data(definition.jsonValue, mediaType: mediaType)
        case ("DELETE", let name?):
            try deleteClass(keyset, kind, name: name)
            return ServerResponse(status: 200)
        default:
            throw name == nil
                ? .methodNotAllowed(method, on: "a class list", allow: ["GET", "POST"])
                : .methodNotAllowed(method, on: "a class", allow: ["GET", "PUT", "DELETE"])
        }
    }

    /// Adds a new SubKey class to `keyset`.
    @discardableResult
    static func defineClass(_ keyset: Keyset, _ draft: ClassDraft, path: String) throws(APIError) -> ClassDefinition {
        if keyset.registry.definition(draft.kind, ClassKey(name: draft.name, level: .subKey)) != nil {
            throw .conflict("class \(draft.name) already exists at SubKey", path: path + "/name")
        }
        let definition = try keyset.registry.resolveDraft(draft, replacing: nil, path: path)
        keyset.registry.store(definition)
        return definition
    }

    private static func replaceClass(_ keyset: Keyset, _ draft: ClassDraft, path: String) throws(APIError)
        -> ClassDefinition
    {
        let key = ClassKey(name: draft.name, level: .subKey)
        guard let current = keyset.registry.definition(draft.kind, key) else {
            if keyset.registry.resolve(draft.kind, name: draft.name, level: .global) != nil {
                throw .invalid("built-in Global classes cannot be changed", path: path + "/name")
            }
            throw .notFound("class definition not found: \(draft.name)")
        }
        let definition = try keyset.registry.resolveDraft(draft, replacing: current, path: path)
        let versions = Set(definition.versions.map(\.version))
        for id in keyset.ids(draft.kind, ofClass: key) {
            if let object = keyset.object(draft.kind, id), !versions.contains(object.classVersion) {
                throw APIError(
                    status: 409, code: .classInUse,
                    message: "version \(object.classVersion) is still used by \(id)", path: path + "/versions")
            }
        }
        keyset.registry.store(definition)
        return definition
    }

    private static func deleteClass(_ keyset: Keyset, _ kind: ClassKind, name: String) throws(APIError) {
        let key = ClassKey(name: name, level: .subKey)
        guard keyset.registry.definition(kind, key) != nil else {
            if keyset.registry.resolve(kind, name: name, level: .global) != nil {
                throw .invalid("built-in Global classes cannot be deleted")
            }
            throw .notFound("class definition not found: \(name)")
        }
        if keyset.count(kind, ofClass: key) > 0 {
            throw APIError(status: 409, code: .classInUse, message: "class \(name) still has objects")
        }
        let dependants =
            keyset.registry.classes(kind).values.filter { $0.parent == key }.map(\.name)
            + (kind == .entity
                ? keyset.registry.relationshipClasses.values.filter { $0.entityAClass == key || $0.entityBClass == key }
                    .map(\.name) : [])
        if let first = dependants.sorted().first {
            throw APIError(status: 409, code: .classInUse, message: "class \(first) depends on \(name)")
        }
        keyset.registry.remove(kind, key)
    }
}
