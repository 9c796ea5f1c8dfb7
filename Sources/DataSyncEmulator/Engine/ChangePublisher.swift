import Foundation

/// Turns a committed change to a stored object into a ``ChangeEvent`` on the change feed: who
/// receives it (the objects whose channels get it, from the graph as it is at the change) and
/// which projections of the class its real-time events carry. It reads keysets and never
/// changes them.
final class ChangePublisher {
    var feed = ChangeFeed()

    /// Publishes one change to `object`; `recipients` defaults to those of the graph as it is now.
    func publish(
        _ keyset: Keyset, _ object: StoredObject, action: ChangeEvent.Action, cause: ChangeEvent.Cause,
        origin: ChangeEvent.Cause = .request, sequence: UInt64, at time: Int64,
        recipients: [ChangeEvent.Recipient]? = nil
    ) {
        let space = object.kind.space
        let eventsEnabled = keyset.registry.definition(space, object.classKey)?.eventsEnabled ?? false
        feed.publish(
            ChangeEvent(
                sequence: sequence, subscribeKey: keyset.subscribeKey, action: action, cause: cause, origin: origin,
                objectType: object.kind.rawValue, className: object.classKey.name,
                classLevel: object.classKey.level.rawValue, classVersion: object.classVersion,
                eventsEnabled: eventsEnabled, id: object.id, object: object.jsonValue,
                time: Date(timeIntervalSince1970: Double(time) / 1_000_000),
                recipients: recipients ?? Self.recipients(keyset, object, action: action),
                projections: keyset.registry.eventProjections(space, object.classKey, version: object.classVersion)))
    }

    /// The objects whose channels receive a change to `object`, from the graph as it is now: a
    /// relationship's two sides; an entity itself and, unless it was just created, every entity
    /// on the other side of its memberships and relationships (in either direction).
    static func recipients(_ keyset: Keyset, _ object: StoredObject, action: ChangeEvent.Action)
        -> [ChangeEvent.Recipient]
    {
        var ids: [String] = []
        if object.kind.space == .relationship {
            ids = [object.sideA, object.sideB].compactMap { $0 }
        } else {
            ids = [object.id]
            if action != .create {
                for linkId in keyset.linkedRelationshipIds(of: object.id) {
                    guard let link = keyset.object(.relationship, linkId) else { continue }
                    ids += [link.sideA, link.sideB].compactMap { $0 }
                }
            }
        }
        // Ids are distinct when their Unicode scalars are (NFC and NFD forms are two entities).
        var seen: Set<ExactString> = []
        return ids.filter { seen.insert(ExactString($0)).inserted }.map { recipient(keyset, id: $0) }
    }

    /// An entity as a recipient: its id and the named projections of its class.
    static func recipient(_ keyset: Keyset, id: String) -> ChangeEvent.Recipient {
        guard let entity = keyset.object(.entity, id),
            let projections = keyset.registry.eventProjections(.entity, entity.classKey, version: entity.classVersion)
        else { return ChangeEvent.Recipient(id: id) }
        let named = projections.map(\.name).filter { $0 != ChangeEvent.Projection.defaultName }
        return ChangeEvent.Recipient(id: id, projections: named)
    }
}
