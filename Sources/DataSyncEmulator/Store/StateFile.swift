import Foundation
import JSONCore

/// The emulator's state on disk: one JSON document, rewritten whole after every committed
/// change. Writes go to a temporary file in the same directory, are flushed, then renamed over
/// the old file, so a crash leaves either the old or the new state, never a mix.
enum StateFile {
    static let format = "datasync-emulator-state"
    static let formatVersion: Int64 = 1

    // MARK: Snapshot

    static func snapshot(_ engine: Engine) -> JSONValue {
        var keysets: [JSONValue] = []
        for key in engine.keysets.keys.sorted() {
            guard let keyset = engine.keysets[key] else { continue }
            let registry = keyset.registry
            func ordered(_ kind: ClassKind) -> [JSONValue] {
                registry.classes(kind).values.filter { !$0.isBuiltIn }
                    .map { definition -> (Int, ClassDefinition) in
                        var depth = 0
                        var current = definition.parent
                        while let parent = current, depth < 64 {
                            depth += 1
                            current = registry.definition(kind, parent)?.parent
                        }
                        return (depth, definition)
                    }
                    .sorted { ($0.0, $0.1.name) < ($1.0, $1.1.name) }
                    .map(\.1.jsonValue)
            }
            let objects = keyset.allObjects.sorted { ($0.kind.space.rawValue, $0.id) < ($1.kind.space.rawValue, $1.id) }
            keysets.append([
                "subscribeKey": .string(key),
                "entityClasses": .array(ordered(.entity)),
                "relationshipClasses": .array(ordered(.relationship)),
                "objects": .array(objects.map(persisted)),
            ])
        }
        return [
            "format": .string(format), "formatVersion": .int(formatVersion),
            "revision": .int(Int64(truncatingIfNeeded: engine.revision)),
            "cursorKey": .string(Base64URL.encode(engine.cursorKey)), "keysets": .array(keysets),
        ]
    }

    private static func persisted(_ object: StoredObject) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(object.id), "kind": .string(object.kind.rawValue), "className": .string(object.classKey.name),
            "classLevel": .string(object.classKey.level.rawValue), "classVersion": .int(Int64(object.classVersion)),
            "createdAt": .int(object.createdAt), "updatedAt": .int(object.updatedAt),
            "expiresAt": .int(object.expiresAt), "eTag": .string(object.eTag),
            "revision": .int(Int64(truncatingIfNeeded: object.revision)),
        ]
        if let status = object.status { fields["status"] = .string(status) }
        if let payload = object.payload { fields["payload"] = payload }
        if let sideA = object.sideA { fields["sideA"] = .string(sideA) }
        if let sideB = object.sideB { fields["sideB"] = .string(sideB) }
        return .object(fields)
    }

    // MARK: Restore

    /// Loads `document` into an empty engine; anything unexpected is a `corruptStateFile` error.
    static func restore(_ document: JSONValue, into engine: Engine) throws(EmulatorError) {
        func corrupt(_ message: String) -> EmulatorError { EmulatorError(code: .corruptStateFile, message: message) }
        guard document["format"]?.stringValue == format else { throw corrupt("not an emulator state file") }
        guard document["formatVersion"]?.int64Value == formatVersion else {
            throw corrupt("unsupported state format version")
        }
        guard let revision = document["revision"]?.int64Value, revision >= 0,
            let key = document["cursorKey"]?.stringValue.flatMap(Base64URL.decode), key.count == 32,
            let keysets = document["keysets"]?.arrayValue
        else { throw corrupt("missing revision, cursorKey or keysets") }
        engine.revision = UInt64(revision)
        engine.cursorKey = key
        for (index, item) in keysets.enumerated() {
            let path = "/keysets/\(index)"
            guard let subscribeKey = item["subscribeKey"]?.stringValue, engine.keysets[subscribeKey] == nil else {
                throw corrupt("\(path)/subscribeKey is missing or repeated")
            }
            let keyset = Keyset(subscribeKey: subscribeKey, registry: ClassRegistry())
            engine.keysets[subscribeKey] = keyset
            for kind in [ClassKind.entity, .relationship] {
                let field = kind == .entity ? "entityClasses" : "relationshipClasses"
                for (classIndex, json) in (item[field]?.arrayValue ?? []).enumerated() {
                    var fields = json.objectValue ?? [:]
                    fields["builtIn"] = nil
                    do {
                        let draft = try ClassDraft(
                            kind: kind, json: .object(fields), path: "\(path)/\(field)/\(classIndex)")
                        keyset.registry.store(try keyset.registry.resolveDraft(draft, replacing: nil, path: ""))
                    } catch {
                        throw corrupt("\(error.path ?? path): \(error.message)")
                    }
                }
            }
            for (objectIndex, json) in (item["objects"]?.arrayValue ?? []).enumerated() {
                guard let object = storedObject(json, registry: keyset.registry),
                    keyset.object(object.kind.space, object.id) == nil
                else { throw corrupt("\(path)/objects/\(objectIndex) is not a valid object") }
                keyset.insert(object)
            }
        }
    }

    private static func storedObject(_ json: JSONValue, registry: ClassRegistry) -> StoredObject? {
        guard let id = json["id"]?.stringValue, let kindName = json["kind"]?.stringValue,
            let className = json["className"]?.stringValue, let level = json["classLevel"]?.stringValue,
            let version = json["classVersion"]?.intValue, let createdAt = json["createdAt"]?.int64Value,
            let updatedAt = json["updatedAt"]?.int64Value, let expiresAt = json["expiresAt"]?.int64Value,
            let eTag = json["eTag"]?.stringValue, let revision = json["revision"]?.int64Value
        else { return nil }
        let kind = ObjectKind(rawValue: kindName)
        guard [.user, .channel, .entity, .membership, .relationship].contains(kind) else { return nil }
        let key = ClassKey(name: className, level: ClassLevel(rawValue: level))
        guard registry.definition(kind.space, key) != nil else { return nil }
        let payload = json["payload"]
        guard payload == nil || payload?.objectValue != nil else { return nil }
        let sideA = json["sideA"]?.stringValue
        let sideB = json["sideB"]?.stringValue
        guard kind.space == .entity || (sideA != nil && sideB != nil) else { return nil }
        return StoredObject(
            id: id, kind: kind, classKey: key, classVersion: version, status: json["status"]?.stringValue,
            payload: payload, createdAt: createdAt, updatedAt: updatedAt, expiresAt: expiresAt, eTag: eTag,
            revision: UInt64(truncatingIfNeeded: revision), sideA: sideA, sideB: sideB)
    }

    // MARK: Files

    /// The parsed state file, or nil when there is none yet. A file that exists but cannot be
    /// parsed is an error: it is never silently replaced.
    static func read(path: String) throws(EmulatorError) -> JSONValue? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EmulatorError(code: .fileAccess, message: "cannot read the state file \(path)")
        }
        do {
            return try JSONValue(parsing: [UInt8](data))
        } catch {
            throw EmulatorError(code: .corruptStateFile, message: "the state file \(path) is not valid JSON: \(error)")
        }
    }

    /// Writes `bytes` to `path` atomically: temporary file, flush, rename.
    static func write(_ bytes: [UInt8], to path: String) throws(EmulatorError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw EmulatorError(code: .fileAccess, message: "cannot create \(temporary.path)")
            }
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.write(contentsOf: Data(bytes))
            try handle.synchronize()
            try handle.close()
            guard rename(temporary.path, url.path) == 0 else {
                throw EmulatorError(code: .fileAccess, message: "cannot rename the state file into \(path)")
            }
        } catch let error as EmulatorError {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw EmulatorError(code: .fileAccess, message: "cannot write the state file \(path): \(error)")
        }
    }
}
