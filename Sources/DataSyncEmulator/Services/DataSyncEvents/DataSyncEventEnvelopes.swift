import Foundation
import JSONCore

/// Turns one committed change into the DataSync real-time envelopes (`e: 5`) the service publishes
/// for it: the routing table, the projection channels and their filtered payloads of
/// Documentation/Emulator.md ("Real-time events"). Pure: everything comes from the change.
enum DataSyncEventEnvelopes {
    /// The `e` of a DataSync event.
    static let eventType = 5
    /// The class fields a REST object carries and an event's `data` does not repeat.
    static let classFields: Set<String> = [
        "entityClass", "entityClassVersion", "entityClassLevel", "relationshipClass", "relationshipClassVersion",
    ]

    /// The envelopes for `change`, in publish order: for each recipient its id channel, then its
    /// projection channels; no channel twice. Empty when the class has events off or the change
    /// comes from an expiry or an admin reset (those objects vanish without events).
    static func envelopes(for change: ChangeEvent) -> [ServerEnvelope] {
        guard change.eventsEnabled, change.origin != .expiry, change.origin != .reset else { return [] }
        let metadata: JSONValue = [
            "event": .string(change.action.rawValue),
            "source": "data-sync",
            "type": .string(change.objectType),
            "className": .string(change.className),
            "classLevel": .string(change.classLevel),
            "classVersion": .int(Int64(change.classVersion)),
        ]
        var views: [String: JSONValue] = [:]
        func view(_ projection: String) -> JSONValue {
            if let known = views[projection] { return known }
            let made = data(for: change, projection: projection)
            views[projection] = made
            return made
        }
        var seen: Set<String> = []
        var result: [ServerEnvelope] = []
        for recipient in change.recipients {
            let targets =
                [(channel: recipient.id, projection: ChangeEvent.Projection.defaultName)]
                + recipient.projections.map { (channel: channelName(projection: $0, id: recipient.id), projection: $0) }
            for target in targets where seen.insert(target.channel).inserted {
                let payload: JSONValue = [
                    "version": "1.0", "metadata": metadata, "data": view(target.projection),
                ]
                result.append(
                    ServerEnvelope(
                        subscribeKey: change.subscribeKey, channel: target.channel, payload: payload,
                        eventType: eventType))
            }
        }
        return result
    }

    /// `<id>` for `__default__`, `__<projection>__<id>` for a named projection.
    static func channelName(projection: String, id: String) -> String {
        projection == ChangeEvent.Projection.defaultName ? id : "__\(projection)__\(id)"
    }

    /// `data` for a channel of `projection`: `{id, deletedAt}` for a delete (never filtered);
    /// otherwise the object without its class fields, filtered by the change's projection of that
    /// name (its `__default__` when the class has no such projection; unfiltered when the class
    /// declares none).
    static func data(for change: ChangeEvent, projection: String) -> JSONValue {
        if change.action == .delete {
            let micros = Int64((change.time.timeIntervalSince1970 * 1_000_000).rounded())
            return ["id": .string(change.id), "deletedAt": .string(Timestamp.string(micros: micros))]
        }
        var full = change.object.objectValue ?? [:]
        for field in classFields { full[field] = nil }
        guard let projections = change.projections else { return .object(full) }
        let chosen =
            projections.first { $0.name == projection }
            ?? projections.first { $0.name == ChangeEvent.Projection.defaultName }
        return .object(filtered(full, pointers: chosen?.pointers ?? []))
    }

    /// `object` with only the parts of `status` and `payload` that `pointers` name; every other
    /// field is kept. A pointer into an array carries the whole array; a payload of which nothing
    /// is carried is left out.
    static func filtered(_ object: JSONObject, pointers: [String]) -> JSONObject {
        var result = object
        result["status"] = nil
        result["payload"] = nil
        var payload: JSONValue?
        for pointer in pointers {
            guard let tokens = PointerLookup.tokens(pointer), let first = tokens.first else { continue }
            if first == "status", tokens.count == 1 {
                result["status"] = object["status"]
            } else if first == "payload", let source = object["payload"] {
                copy(tokens.dropFirst(), from: source, into: &payload)
            }
        }
        if let payload, payload != [:] { result["payload"] = payload }
        return result
    }

    /// Copies the value `tokens` names in `source` into `target` at the same place, creating the
    /// objects on the way.
    private static func copy(_ tokens: ArraySlice<String>, from source: JSONValue, into target: inout JSONValue?) {
        guard let token = tokens.first else {
            target = source
            return
        }
        if case .array = source {
            target = source
            return
        }
        guard case .object(let members) = source, let child = members[token] else { return }
        var copied = target?.objectValue ?? [:]
        var inner = copied[token]
        copy(tokens.dropFirst(), from: child, into: &inner)
        copied[token] = inner
        target = .object(copied)
    }
}
