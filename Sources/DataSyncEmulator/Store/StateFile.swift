import Foundation
import JSONCore

/// The emulator's state on disk, as one JSON document: the snapshot the state file holds (see
/// ``StatePersistence`` for the journal written next to it between snapshots).
///
/// Reading is strict, because the file is meant to be edited by hand and a mistake must not cost
/// data: an unknown field, a keyset without `objects` (which would load as empty, and the next
/// save would drop what the file held), a `revision` below an object's (the emulator would hand
/// out eTags that objects already have), a relationship whose side is missing… are refused with
/// the place and the reason, and the file is left as it is.
enum StateFile {
    static let format = "datasync-emulator-state"
    static let formatVersion: Int64 = 1

    static let topLevelFields: Set<String> = [
        "format", "formatVersion", "revision", "cursorKey", "keysets", "generation",
    ]
    static let keysetFields: Set<String> = ["subscribeKey", "entityClasses", "relationshipClasses", "objects"]
    static let objectFields: Set<String> = [
        "id", "kind", "className", "classLevel", "classVersion", "createdAt", "updatedAt", "expiresAt", "eTag",
        "revision", "status", "payload", "sideA", "sideB",
    ]

    // MARK: Snapshot

    /// The whole in-memory state as a state-file document (without a journal generation).
    static func snapshot(_ engine: Engine) -> JSONValue {
        snapshot(engine, generation: nil)
    }

    /// The whole state; `generation` ties the snapshot to the journal written after it.
    static func snapshot(_ engine: Engine, generation: Int64?) -> JSONValue {
        var keysets: [JSONValue] = []
        for key in engine.store.keysets.keys.sorted() {
            guard let keyset = engine.store.keysets[key] else { continue }
            let objects = keyset.allObjects.sorted { left, right in
                left.kind.space != right.kind.space
                    ? left.kind.space.rawValue < right.kind.space.rawValue : SortedIds.less(left.id, right.id)
            }
            keysets.append([
                "subscribeKey": .string(key),
                "entityClasses": .array(keyset.registry.customClasses(.entity).map(\.jsonValue)),
                "relationshipClasses": .array(keyset.registry.customClasses(.relationship).map(\.jsonValue)),
                "objects": .array(objects.map(persisted)),
            ])
        }
        var document: [String: JSONValue] = [
            "format": .string(format), "formatVersion": .int(formatVersion),
            "revision": .int(Int64(truncatingIfNeeded: engine.transactions.revision)),
            "cursorKey": .string(Base64URL.encode(engine.cursors.key)), "keysets": .array(keysets),
        ]
        if let generation { document["generation"] = .int(generation) }
        return .object(document)
    }

    static func persisted(_ object: StoredObject) -> JSONValue {
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

    /// A refusal: where in the document (a JSON Pointer) and what is wrong there.
    struct Refusal: Error {
        var path: String
        var reason: String

        var message: String { path.isEmpty ? reason : "\(path): \(reason)" }
    }

    /// Loads `document` into an empty engine and checks the result (``validate(_:revision:)``);
    /// anything unexpected is a `corruptStateFile` error naming the place.
    static func restore(_ document: JSONValue, into engine: Engine) throws(EmulatorError) {
        do throws(Refusal) {
            _ = try load(document, into: engine)
            try validate(engine)
        } catch {
            throw EmulatorError(code: .corruptStateFile, message: error.message)
        }
    }

    /// Loads a snapshot document into an empty engine; returns its journal generation (0 when
    /// it has none). Checks each field, not the whole (``validate(_:)`` does that).
    static func load(_ document: JSONValue, into engine: Engine) throws(Refusal) -> Int64 {
        guard let top = document.objectValue else { throw Refusal(path: "", reason: "not a JSON object") }
        guard top["format"]?.stringValue == format else {
            throw Refusal(path: "/format", reason: "not an emulator state file (format must be \"\(format)\")")
        }
        guard top["formatVersion"]?.int64Value == formatVersion else {
            throw Refusal(
                path: "/formatVersion",
                reason: "unsupported state format version (this emulator reads \(formatVersion))")
        }
        try refuseUnknownFields(top, allowed: topLevelFields, at: "")
        guard let revision = top["revision"]?.int64Value, revision >= 0 else {
            throw Refusal(path: "/revision", reason: "missing, or not a non-negative integer")
        }
        guard let key = top["cursorKey"]?.stringValue.flatMap(Base64URL.decode), key.count == 32 else {
            throw Refusal(path: "/cursorKey", reason: "missing, or not 32 bytes in base64url")
        }
        var generation: Int64 = 0
        if let value = top["generation"] {
            guard let number = value.int64Value, number >= 0 else {
                throw Refusal(path: "/generation", reason: "not a non-negative integer")
            }
            generation = number
        }
        guard let keysets = top["keysets"]?.arrayValue else {
            throw Refusal(path: "/keysets", reason: "missing, or not an array")
        }
        engine.transactions.revision = UInt64(revision)
        engine.cursors.key = key
        for (index, item) in keysets.enumerated() {
            let path = "/keysets/\(index)"
            guard let fields = item.objectValue else { throw Refusal(path: path, reason: "not an object") }
            try refuseUnknownFields(fields, allowed: keysetFields, at: path)
            guard let subscribeKey = fields["subscribeKey"]?.stringValue, !subscribeKey.isEmpty else {
                throw Refusal(path: path + "/subscribeKey", reason: "missing, or not a non-empty string")
            }
            guard engine.store.keysets[subscribeKey] == nil else {
                throw Refusal(path: path + "/subscribeKey", reason: "the keyset \(subscribeKey) is listed twice")
            }
            for field in ["entityClasses", "relationshipClasses", "objects"] where fields[field]?.arrayValue == nil {
                throw Refusal(
                    path: path + "/" + field,
                    reason: "missing, or not an array (a keyset lists all of them, [] when empty; without "
                        + "`\(field)` the keyset would load without its \(field == "objects" ? "objects" : "classes"))")
            }
            guard let keyset = engine.store.addLoadedKeyset(subscribeKey) else {
                throw Refusal(path: path + "/subscribeKey", reason: "the keyset \(subscribeKey) is listed twice")
            }
            keyset.registry = try registry(fields, at: path)
            for (objectIndex, json) in (fields["objects"]?.arrayValue ?? []).enumerated() {
                let objectPath = "\(path)/objects/\(objectIndex)"
                let object = try storedObject(json, registry: keyset.registry, at: objectPath)
                guard keyset.object(object.kind.space, object.id) == nil else {
                    throw Refusal(
                        path: objectPath + "/id",
                        reason:
                            "the id \(quoted(object.id)) is used twice in the \(object.kind.space.rawValue) id space")
                }
                keyset.insert(object)
            }
        }
        return generation
    }

    /// The classes of a keyset document (`entityClasses`, `relationshipClasses`) over the built-ins.
    static func registry(_ fields: JSONObject, at path: String) throws(Refusal) -> ClassRegistry {
        var registry = ClassRegistry()
        for kind in [ClassKind.entity, .relationship] {
            let field = kind == .entity ? "entityClasses" : "relationshipClasses"
            for (classIndex, json) in (fields[field]?.arrayValue ?? []).enumerated() {
                var definition = json.objectValue ?? [:]
                definition["builtIn"] = nil
                let classPath = "\(path)/\(field)/\(classIndex)"
                do throws(APIError) {
                    let draft = try ClassDraft(kind: kind, json: .object(definition), path: classPath)
                    if registry.definition(kind, ClassKey(name: draft.name, level: .subKey)) != nil {
                        throw APIError.conflict("the class \(draft.name) is defined twice", path: classPath + "/name")
                    }
                    registry.store(try registry.resolveDraft(draft, replacing: nil, path: classPath))
                } catch {
                    throw Refusal(path: error.path ?? classPath, reason: error.message)
                }
            }
        }
        return registry
    }

    /// One persisted object, checked field by field against `registry`.
    static func storedObject(_ json: JSONValue, registry: ClassRegistry, at path: String) throws(Refusal)
        -> StoredObject
    {
        guard let fields = json.objectValue else { throw Refusal(path: path, reason: "not an object") }
        try refuseUnknownFields(fields, allowed: objectFields, at: path)
        func string(_ name: String) throws(Refusal) -> String {
            guard let value = fields[name]?.stringValue else {
                throw Refusal(path: path + "/" + name, reason: "missing, or not a string")
            }
            return value
        }
        func integer(_ name: String) throws(Refusal) -> Int64 {
            guard let value = fields[name]?.int64Value else {
                throw Refusal(path: path + "/" + name, reason: "missing, or not an integer")
            }
            return value
        }
        func optionalString(_ name: String) throws(Refusal) -> String? {
            guard let value = fields[name], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw Refusal(path: path + "/" + name, reason: "not a string") }
            return text
        }
        let id = try string("id")
        do throws(APIError) {
            try RequestBody.checkId(id, path: path + "/id")
        } catch {
            throw Refusal(path: path + "/id", reason: error.message)
        }
        let kind = ObjectKind(rawValue: try string("kind"))
        guard [.user, .channel, .entity, .membership, .relationship].contains(kind) else {
            throw Refusal(path: path + "/kind", reason: "must be user, channel, entity, membership or relationship")
        }
        let key = ClassKey(name: try string("className"), level: ClassLevel(rawValue: try string("classLevel")))
        guard let definition = registry.definition(kind.space, key) else {
            throw Refusal(
                path: path + "/className",
                reason: "the keyset defines no \(kind.space.rawValue) class \(key.name) at level \(key.level.rawValue)")
        }
        let expectedKind: ObjectKind
        if kind.space == .entity {
            expectedKind = registry.entityKind(key)
        } else {
            expectedKind =
                registry.isKind(.relationship, key, of: ClassDefinition.membershipKey) ? .membership : .relationship
        }
        guard kind == expectedKind else {
            throw Refusal(
                path: path + "/kind",
                reason: "an object of class \(key.name) is a \(expectedKind.rawValue), not a \(kind.rawValue)")
        }
        let classVersion = try integer("classVersion")
        guard let version = Int(exactly: classVersion), definition.version(version) != nil else {
            throw Refusal(path: path + "/classVersion", reason: "the class \(key.name) has no version \(classVersion)")
        }
        let revision = try integer("revision")
        guard revision >= 0 else { throw Refusal(path: path + "/revision", reason: "must not be negative") }
        let eTag = try string("eTag")
        guard !eTag.isEmpty else { throw Refusal(path: path + "/eTag", reason: "must not be empty") }
        let status = try optionalString("status")
        if let status, status.unicodeScalars.count > RequestBody.maximumStatusLength {
            throw Refusal(path: path + "/status", reason: "at most \(RequestBody.maximumStatusLength) Unicode scalars")
        }
        var payload: JSONValue?
        if let value = fields["payload"], !value.isNull {
            guard value.objectValue != nil else { throw Refusal(path: path + "/payload", reason: "must be an object") }
            payload = value
        }
        let sideA = try optionalString("sideA")
        let sideB = try optionalString("sideB")
        if kind.space == .relationship {
            guard sideA != nil else {
                throw Refusal(path: path + "/sideA", reason: "a \(kind.rawValue) needs both sides")
            }
            guard sideB != nil else {
                throw Refusal(path: path + "/sideB", reason: "a \(kind.rawValue) needs both sides")
            }
        } else if sideA != nil || sideB != nil {
            throw Refusal(path: path + (sideA != nil ? "/sideA" : "/sideB"), reason: "an entity has no sides")
        }
        return StoredObject(
            id: id, kind: kind, classKey: key, classVersion: version, status: status, payload: payload,
            createdAt: try integer("createdAt"), updatedAt: try integer("updatedAt"),
            expiresAt: try integer("expiresAt"),
            eTag: eTag, revision: UInt64(revision), sideA: sideA, sideB: sideB)
    }

    /// Checks the loaded state as a whole: no object's revision or eTag is ahead of the state's
    /// revision (the emulator would hand them out again), every relationship's sides exist, a
    /// user and a channel have at most one membership, every object's class and version exist.
    static func validate(_ engine: Engine) throws(Refusal) {
        let revision = engine.transactions.revision
        for subscribeKey in engine.store.keysets.keys.sorted() {
            guard let keyset = engine.store.keysets[subscribeKey] else { continue }
            let place = "keyset \(subscribeKey)"
            var pairs: [ExactString: String] = [:]
            for object in keyset.allObjects.sorted(by: { SortedIds.less($0.id, $1.id) }) {
                let what = "\(place), \(object.kind.rawValue) \(quoted(object.id))"
                if object.revision > revision {
                    throw Refusal(
                        path: "/revision",
                        reason: "the state's revision \(revision) is below the revision \(object.revision) of \(what): "
                            + "the next writes would hand out eTags and change-feed numbers that already exist; "
                            + "set it to at least \(object.revision)")
                }
                if let owner = eTagRevision(object.eTag), owner > revision {
                    throw Refusal(
                        path: "/revision",
                        reason: "the eTag \(object.eTag) of \(what) belongs to revision \(owner), above the state's "
                            + "revision \(revision): the emulator would hand it out again; set the revision to at least \(owner)"
                    )
                }
                guard let definition = keyset.registry.definition(object.kind.space, object.classKey),
                    definition.version(object.classVersion) != nil
                else {
                    throw Refusal(
                        path: "",
                        reason:
                            "\(what) is of class \(object.classKey.name) version \(object.classVersion), which the keyset does not define"
                    )
                }
                guard object.kind.space == .relationship, let sideA = object.sideA, let sideB = object.sideB else {
                    continue
                }
                for side in [sideA, sideB] where keyset.object(.entity, side) == nil {
                    throw Refusal(
                        path: "", reason: "\(what) names the entity \(quoted(side)), which the state does not hold")
                }
                if object.kind == .membership {
                    let pair = Keyset.pairKey(channelId: sideA, userId: sideB)
                    if let other = pairs[pair] {
                        throw Refusal(
                            path: "",
                            reason: "\(what) and membership \(quoted(other)) both put user \(quoted(sideB)) in channel "
                                + "\(quoted(sideA)); a user has one membership per channel")
                    }
                    pairs[pair] = object.id
                }
            }
        }
    }

    /// The revision whose eTag is `eTag` (``Transactions/eTag(for:)`` inverted), or nil when no
    /// revision has it.
    static func eTagRevision(_ eTag: String) -> UInt64? {
        guard let value = UInt64(eTag, radix: 36) else { return nil }
        let revision = (value &- 0x5bd1_e995) &* multiplierInverse
        return Transactions.eTag(for: revision) == eTag ? revision : nil
    }

    /// The inverse of the eTag multiplier modulo 2^64 (Newton's iteration; the multiplier is odd).
    private static let multiplierInverse: UInt64 = {
        let multiplier: UInt64 = 0x9E37_79B9
        var inverse = multiplier
        for _ in 0..<6 { inverse = inverse &* (2 &- multiplier &* inverse) }
        return inverse
    }()

    static func refuseUnknownFields(_ fields: JSONObject, allowed: Set<String>, at path: String)
        throws(Refusal)
    {
        for key in fields.keys.sorted() where !allowed.contains(key) {
            throw Refusal(
                path: path + "/" + escape(key),
                reason: "unknown field (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    /// An id as a JSON string literal, so invisible or look-alike characters show.
    static func quoted(_ text: String) -> String {
        (try? JSONValue.string(text).jsonBytes()).map { String(decoding: $0, as: UTF8.self) } ?? "\"\(text)\""
    }

    // MARK: Files

    /// The parsed file at `path`, or nil when there is none. A file that exists but cannot be
    /// parsed is an error: it is never silently replaced.
    static func read(path: String) throws(EmulatorError) -> JSONValue? {
        guard let bytes = try readBytes(path: path) else { return nil }
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw EmulatorError(
                code: .corruptStateFile,
                message: "the state file \(path) is not valid JSON (\(error)); it was left as it is")
        }
    }

    /// The bytes of the file at `path`, or nil when there is none. A symbolic link, or a file
    /// another user owns, is refused (``StateFileAccess/read(_:)``).
    static func readBytes(path: String) throws(EmulatorError) -> [UInt8]? {
        try StateFileAccess.read(path)
    }
}
