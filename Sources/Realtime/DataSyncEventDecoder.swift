import DataSyncModels
import Foundation
package import JSONCore

extension SubscribeEnvelope {
    /// Whether this is a DataSync change: `e` = 5 and `d.metadata.source` = `data-sync`.
    ///
    /// Such items are made by the service, never encrypted: message decryption must skip them.
    /// Any other `e` = 5 item is an ordinary message.
    package var isDataSyncEvent: Bool {
        type == 5 && payload["metadata"]?["source"]?.stringValue == DataSyncEventDecoder.source
    }
}

extension PubNubDataSyncEvent {
    /// The DataSync event an envelope carries, or `nil` when it is not one (see
    /// ``SubscribeEnvelope/isDataSyncEvent``). Never fails otherwise: what cannot be read becomes
    /// ``PubNubDataSyncChange/unknown(_:)`` with the metadata and data attached.
    package init?(envelope: SubscribeEnvelope) {
        guard envelope.isDataSyncEvent else { return nil }
        let subscription = envelope.subscriptionMatch.flatMap { $0 == envelope.channel ? nil : $0 }
        self = DataSyncEventDecoder.decode(
            envelope.payload, channel: envelope.channel, subscription: subscription,
            timetoken: envelope.published.timetoken)
    }
}

/// Reads the `d` object of a DataSync item (Documentation/DataSyncRealtime.md):
///
/// ```
/// {"version": "1.0",
///  "metadata": {"event": "create|update|delete", "source": "data-sync",
///               "type": "user|channel|membership|entity|relationship",
///               "className": "…", "classLevel": "Global|SubKey", "classVersion": 1},
///  "data": {…}}
/// ```
///
/// Tolerates the older forms: `type` `entity`/`relationship` for built-in classes (the kind then
/// comes from a `Global` `User`, `Channel` or `Membership` class name), `classVersion` as a string,
/// `:`-composite class names (`User::`, `:X:`, `::Customer`), and membership sides as
/// `entityAId`/`entityBId`.
package enum DataSyncEventDecoder {
    package static let source = "data-sync"

    private struct Problem: Error {
        let text: String
    }

    /// The class fields of the metadata, after the legacy rules.
    private struct ClassInfo {
        var name: String?
        var level: PubNubDataSyncClassLevel?
        var version: Int?
    }

    private enum Family {
        case entity
        case relationship
    }

    package static func decode(
        _ payload: JSONValue, channel: String, subscription: String?, timetoken: Timetoken
    ) -> PubNubDataSyncEvent {
        let metadata = payload["metadata"] ?? .null
        let data = payload["data"] ?? .null
        var event = PubNubDataSyncEvent(
            change: .unknown(PubNubDataSyncUnknownChange(metadata: metadata, payload: data, reason: "")),
            kind: PubNubDataSyncKind(rawValue: metadata["type"]?.stringValue ?? ""),
            version: versionText(payload["version"]), channel: channel, subscription: subscription,
            timetoken: timetoken)
        func unknown(_ reason: String) -> PubNubDataSyncEvent {
            event.change = .unknown(PubNubDataSyncUnknownChange(metadata: metadata, payload: data, reason: reason))
            return event
        }
        let type = metadata["type"]?.stringValue
        let info: ClassInfo
        switch classInfo(metadata) {
        case .success(let value):
            info = value
        case .failure(let problem):
            // Still say what kind of object it was about, as far as the type alone tells.
            if let type, case (_, let kind)? = classify(type: type, info: ClassInfo()) { event.kind = kind }
            return unknown(problem.text)
        }
        event.className = info.name
        event.classLevel = info.level
        event.classVersion = info.version
        guard let type else { return unknown("metadata.type is missing or not a string") }
        guard case (let family, let kind)? = classify(type: type, info: info) else {
            return unknown("metadata.type \"\(type)\" is not a DataSync object type")
        }
        event.kind = kind
        guard let action = metadata["event"]?.stringValue else { return unknown("metadata.event is missing") }
        guard data.objectValue != nil else { return unknown("data is \(data.typeName), not an object") }
        do {
            switch (family, action.lowercased()) {
            case (.entity, "create"), (.entity, "update"):
                event.change = action.lowercased() == "create" ? .entityCreated : .entityUpdated
                event.entity = try entityState(data, kind: kind, info: info)
            case (.relationship, "create"), (.relationship, "update"):
                event.change = action.lowercased() == "create" ? .relationshipCreated : .relationshipUpdated
                event.relationship = try relationshipState(data, kind: kind, info: info)
            case (.entity, "delete"), (.relationship, "delete"):
                event.change = family == .entity ? .entityDeleted : .relationshipDeleted
                event.removed = try removedObject(data, info: info, isLink: family == .relationship)
            default:
                return unknown("metadata.event \"\(action)\" is not create, update or delete")
            }
        } catch let error as PubNubError {
            return unknown(error.message)
        } catch {
            return unknown("\(error)")
        }
        return event
    }

    // MARK: - Metadata

    private static func versionText(_ value: JSONValue?) -> String? {
        guard let value else { return nil }
        if let text = value.stringValue { return text }
        if let number = value.doubleValue { return String(number) }
        return nil
    }

    private static func classInfo(_ metadata: JSONValue) -> Result<ClassInfo, Problem> {
        var info = ClassInfo()
        if let raw = metadata["className"], !raw.isNull {
            guard let text = raw.stringValue else {
                return .failure(Problem(text: "metadata.className is \(raw.typeName), not a string"))
            }
            let (name, level) = splitComposite(text)
            info.name = name
            info.level = level
        }
        if let raw = metadata["classLevel"], !raw.isNull {
            guard let text = raw.stringValue else {
                return .failure(Problem(text: "metadata.classLevel is \(raw.typeName), not a string"))
            }
            info.level = PubNubDataSyncClassLevel(rawValue: text)
        }
        if let raw = metadata["classVersion"], !raw.isNull {
            guard let number = integer(raw) else {
                return .failure(Problem(text: "metadata.classVersion is not an integer: \(raw.description)"))
            }
            info.version = number
        }
        return .success(info)
    }

    /// An integer written as a JSON number or as a string of digits.
    package static func integer(_ value: JSONValue) -> Int? {
        if let number = value.intValue { return number }
        if let double = value.doubleValue, double.rounded() == double { return Int(exactly: double) }
        if let text = value.stringValue { return Int(text.trimmingCharacters(in: .whitespaces)) }
        return nil
    }

    /// A legacy composite class name (`Global:Account:SubKey` positions, such as `User::`,
    /// `:X:` or `::Customer`) as its last non-empty segment and the level of that position; a plain
    /// name as itself with no level.
    package static func splitComposite(_ text: String) -> (name: String, level: PubNubDataSyncClassLevel?) {
        guard text.contains(":") else { return (text, nil) }
        let segments = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let index = segments.lastIndex(where: { !$0.isEmpty }) else { return (text, nil) }
        let levels: [PubNubDataSyncClassLevel] = [.global, .account, .subKey]
        let level = segments.count == levels.count ? levels[index] : nil
        return (String(segments[index]), level)
    }

    /// The family (which container) and kind of a `type`, or `nil` for a type that is not an object's.
    private static func classify(type: String, info: ClassInfo) -> (Family, PubNubDataSyncKind)? {
        let builtIn = info.level == .global ? info.name?.lowercased() : nil
        switch type.lowercased() {
        case "user": return (.entity, .user)
        case "channel": return (.entity, .channel)
        case "membership": return (.relationship, .membership)
        case "entity":
            switch builtIn {
            case "user": return (.entity, .user)
            case "channel": return (.entity, .channel)
            default: return (.entity, .custom)
            }
        case "relationship":
            return (.relationship, builtIn == "membership" ? .membership : .custom)
        default:
            return nil
        }
    }

    // MARK: - Data

    /// Reads the state fields as they arrived: what is present is read (a field of the wrong type
    /// is an error), what is absent stays absent. The class fields come from the metadata (the
    /// service does not repeat them in `data`), or from `data` under the REST names when an older
    /// sender put them there.
    private static func readState(
        into state: inout some DataSyncEventState, _ reader: DataSyncWireReader, info: ClassInfo, classKey: String,
        versionKey: String
    ) throws {
        state.className = try info.name ?? reader.optionalString(classKey)
        state.classVersion = try info.version ?? reader.optionalInt(versionKey)
        state.status = try reader.optionalString("status")
        state.payload = reader.payload()
        state.createdAt = try reader.optionalDate("createdAt")
        state.updatedAt = try reader.optionalDate("updatedAt")
        state.expiresAt = try reader.optionalDate("expiresAt")
        state.eTag = try reader.optionalString("eTag")
    }

    private static func entityState(
        _ data: JSONValue, kind: PubNubDataSyncKind, info: ClassInfo
    ) throws -> PubNubDataSyncEntityEvent {
        let reader = try DataSyncWireReader(kind: kindName(kind, fallback: "entity"), value: data)
        var state = PubNubDataSyncEntityEvent(kind: kind, id: try reader.string("id"), classLevel: info.level)
        try readState(into: &state, reader, info: info, classKey: "entityClass", versionKey: "entityClassVersion")
        if state.classLevel == nil { state.classLevel = try reader.classLevel("entityClassLevel") }
        // A user or channel event names its class only when it is a subclass.
        if state.className == nil, kind == .user { state.className = "User" }
        if state.className == nil, kind == .channel { state.className = "Channel" }
        return state
    }

    private static func relationshipState(
        _ data: JSONValue, kind: PubNubDataSyncKind, info: ClassInfo
    ) throws -> PubNubDataSyncRelationshipEvent {
        let reader = try DataSyncWireReader(kind: kindName(kind, fallback: "relationship"), value: data)
        // The sides are filled in after the shared fields are read: a bad answer's first problem is
        // looked for in the order the fields are listed.
        var state = PubNubDataSyncRelationshipEvent(
            kind: kind, id: try reader.string("id"), entityAId: "", entityBId: "")
        try readState(
            into: &state, reader, info: info, classKey: "relationshipClass", versionKey: "relationshipClassVersion")
        if kind == .membership {
            // The service names a membership's sides channelId/userId; older services sent them as A/B.
            state.entityAId = try reader.optionalString("channelId") ?? reader.string("entityAId")
            state.entityBId = try reader.optionalString("userId") ?? reader.string("entityBId")
            if state.className == nil { state.className = "Membership" }
        } else {
            state.entityAId = try reader.string("entityAId")
            state.entityBId = try reader.string("entityBId")
        }
        return state
    }

    private static func removedObject(
        _ data: JSONValue, info: ClassInfo, isLink: Bool
    ) throws -> PubNubDataSyncRemovedObject {
        let reader = try DataSyncWireReader(kind: "deleted object", value: data)
        return PubNubDataSyncRemovedObject(
            id: try reader.string("id"), className: info.name, classLevel: info.level, classVersion: info.version,
            deletedAt: try reader.optionalDate("deletedAt"), endpoints: isLink ? .unknown : nil)
    }

    private static func kindName(_ kind: PubNubDataSyncKind, fallback: String) -> String {
        kind == .custom ? fallback : kind.rawValue
    }
}
