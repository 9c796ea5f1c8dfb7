package import DataSync
package import DataSyncModels
import Foundation
package import Realtime

/// Which objects a view holds, where their changes arrive, how to read them and what each event
/// means for them.
package struct LiveViewDefinition<Element: PubNubDataSyncObject>: Sendable {
    /// Reads every object of the view (all pages); stops with ``PubNubBase/PubNubError/Reason/liveViewTooLarge``
    /// past `limit` objects.
    package typealias Read = @Sendable (_ dataSync: PubNubDataSync, _ limit: Int) async throws -> [Element]

    /// What the view shows, for descriptions: "user alice", "memberships of channel general".
    package var summary: String
    /// The one channel every change of the view's objects is published on.
    package var channel: String
    /// The projection the channel carries.
    package var projection: String
    package var read: Read
    /// What an event received on ``channel`` does to the view; `nil` when it is about something else.
    package var interpret: @Sendable (PubNubDataSyncEvent) -> LiveViewAction<Element>?

    package init(
        summary: String, channel: String, projection: String, read: @escaping Read,
        interpret: @escaping @Sendable (PubNubDataSyncEvent) -> LiveViewAction<Element>?
    ) {
        self.summary = summary
        self.channel = channel
        self.projection = projection
        self.read = read
        self.interpret = interpret
    }
}

/// Which side of a relationship the view's entity is on.
public enum PubNubLiveRelationshipSide: String, Hashable, Sendable, CaseIterable {
    /// Relationships whose A side (`entityAId`) is the entity.
    case a
    /// Relationships whose B side (`entityBId`) is the entity.
    case b
    /// Both: the union of the two (a relationship linking the entity to itself appears once).
    case either
}

extension LiveViewDefinition {
    /// The base projection's name, and what names it (`nil`, `default`, `__default__`).
    static func projectionName(_ projection: String?) -> String {
        guard let projection, projection != "default" else { return PubNubDataSyncEvent.defaultProjection }
        return projection
    }

    /// One user, channel or entity by id: events of that kind for that id, on its (projection)
    /// channel; the read is a get by id, where "not found" is an empty view.
    package static func object(
        id: String, kind: PubNubDataSyncKind, kindName: String, projection: String?,
        narrow: @escaping @Sendable (PubNubDataSyncEntityEvent) -> Element?,
        get: @escaping @Sendable (PubNubDataSync, String) async throws -> Element
    ) throws(PubNubError) -> LiveViewDefinition {
        let channel = try DataSyncEntity.channelName(id: id, projection: projectionName(projection))
        let name = projectionName(projection)
        return LiveViewDefinition(
            summary: "\(kindName) \(id)"
                + (name == PubNubDataSyncEvent.defaultProjection ? "" : " (projection \(name))"),
            channel: channel, projection: name,
            read: { dataSync, _ in
                do {
                    return [try await get(dataSync, id)]
                } catch let error as PubNubError where error.reason == .resourceNotFound {
                    return []
                }
            },
            interpret: { event in
                guard event.kind == kind else { return nil }
                switch event.change {
                case .entityCreated, .entityUpdated:
                    guard let state = event.entity, state.id == id else { return nil }
                    guard state.isComplete else { return .incomplete(state.missingFields) }
                    return narrow(state).map { .upsert($0) }
                case .entityDeleted:
                    guard let removed = event.removed, removed.id == id else { return nil }
                    guard let deletedAt = removed.deletedAt else { return .incomplete(["deletedAt"]) }
                    return .delete(id: id, deletedAt: deletedAt)
                default:
                    return nil
                }
            })
    }
}

extension LiveViewDefinition where Element == PubNubDataSyncMembership {
    /// The memberships of a channel (`ofChannel`) or of a user: membership events arrive on both
    /// endpoints' channels; deleting the endpoint itself, or the object at the other end of a
    /// membership, removes the memberships it had (the service's cascade).
    package static func memberships(of endpoint: String, channelSide: Bool) throws(PubNubError) -> LiveViewDefinition {
        let channel = try DataSyncEntity.channelName(id: endpoint)
        let ownKind: PubNubDataSyncKind = channelSide ? .channel : .user
        let otherKind: PubNubDataSyncKind = channelSide ? .user : .channel
        @Sendable func mine(_ membership: PubNubDataSyncMembership) -> Bool {
            channelSide ? membership.channelId == endpoint : membership.userId == endpoint
        }
        return LiveViewDefinition(
            summary: "memberships of \(channelSide ? "channel" : "user") \(endpoint)", channel: channel,
            projection: PubNubDataSyncEvent.defaultProjection,
            read: { dataSync, limit in
                let all =
                    channelSide
                    ? dataSync.memberships(channelId: endpoint, pageSize: 100)
                    : dataSync.memberships(userId: endpoint, pageSize: 100)
                return try await collect(all, limit: limit)
            },
            interpret: { event in
                switch event.change {
                case .relationshipCreated, .relationshipUpdated:
                    guard event.kind == .membership, let state = event.relationship,
                        (channelSide ? state.entityAId : state.entityBId) == endpoint
                    else { return nil }
                    guard case .membership(let membership)? = state.object else {
                        return .incomplete(state.missingFields)
                    }
                    return mine(membership) ? .upsert(membership) : nil
                case .relationshipDeleted:
                    // Only an id: it came on the endpoint's channel, so it is one of its memberships
                    // unless the link memory knows otherwise.
                    guard event.kind == .membership, let removed = event.removed else { return nil }
                    if case .known(let channelId, let userId) = removed.endpoints,
                        (channelSide ? channelId : userId) != endpoint
                    {
                        return nil
                    }
                    guard let deletedAt = removed.deletedAt else { return .incomplete(["deletedAt"]) }
                    return .delete(id: removed.id, deletedAt: deletedAt)
                case .entityDeleted:
                    guard let removed = event.removed else { return nil }
                    guard event.kind == ownKind || event.kind == otherKind else { return nil }
                    guard let deletedAt = removed.deletedAt else { return .incomplete(["deletedAt"]) }
                    if event.kind == ownKind, removed.id == endpoint {
                        return .deleteLinked(deletedAt: deletedAt) { _ in true }
                    }
                    if event.kind == otherKind {
                        let other = removed.id
                        return .deleteLinked(deletedAt: deletedAt) { membership in
                            (channelSide ? membership.userId : membership.channelId) == other
                        }
                    }
                    return nil
                default:
                    return nil
                }
            })
    }
}

extension LiveViewDefinition where Element == PubNubDataSyncRelationship {
    /// The relationships of one class that link an entity, on the side(s) asked for. Their events
    /// arrive on both sides' channels (and projection mirrors); deleting either side removes them.
    package static func relationships(
        of entity: String, className: String, side: PubNubLiveRelationshipSide, projection: String?
    ) throws(PubNubError) -> LiveViewDefinition {
        guard !className.isEmpty else { throw PubNubError.missingRequiredParameter("className") }
        let channel = try DataSyncEntity.channelName(id: entity, projection: projectionName(projection))
        let name = projectionName(projection)
        @Sendable func sideFits(a: String, b: String) -> Bool {
            switch side {
            case .a: return a == entity
            case .b: return b == entity
            case .either: return a == entity || b == entity
            }
        }
        @Sendable func mine(_ relationship: PubNubDataSyncRelationship) -> Bool {
            relationship.className == className && sideFits(a: relationship.entityAId, b: relationship.entityBId)
        }
        let sideText = side == .either ? "" : " (side \(side.rawValue.uppercased()))"
        return LiveViewDefinition(
            summary: "\(className) relationships of \(entity)\(sideText)"
                + (name == PubNubDataSyncEvent.defaultProjection ? "" : " (projection \(name))"),
            channel: channel, projection: name,
            read: { dataSync, limit in
                var found: [PubNubDataSyncRelationship] = []
                if side != .b {
                    found += try await collect(
                        dataSync.relationships(className: className, entityAId: entity, pageSize: 100), limit: limit)
                }
                if side != .a {
                    found += try await collect(
                        dataSync.relationships(className: className, entityBId: entity, pageSize: 100),
                        limit: limit - found.count)
                }
                return found
            },
            interpret: { event in
                switch event.change {
                case .relationshipCreated, .relationshipUpdated:
                    guard event.kind != .membership, let state = event.relationship else { return nil }
                    guard case .relationship(let relationship)? = state.object else {
                        // Incomplete: it may be one of the view's when its class and side fit.
                        guard state.className.map({ $0 == className }) ?? true,
                            sideFits(a: state.entityAId, b: state.entityBId)
                        else { return nil }
                        return .incomplete(state.missingFields)
                    }
                    return mine(relationship) ? .upsert(relationship) : nil
                case .relationshipDeleted:
                    guard event.kind != .membership, let removed = event.removed else { return nil }
                    if let name = removed.className ?? event.className, name != className { return nil }
                    if case .known(let a, let b) = removed.endpoints, !sideFits(a: a, b: b) { return nil }
                    guard let deletedAt = removed.deletedAt else { return .incomplete(["deletedAt"]) }
                    return .delete(id: removed.id, deletedAt: deletedAt)
                case .entityDeleted:
                    guard let removed = event.removed else { return nil }
                    guard let deletedAt = removed.deletedAt else { return .incomplete(["deletedAt"]) }
                    let gone = removed.id
                    return .deleteLinked(deletedAt: deletedAt) { relationship in
                        relationship.entityAId == gone || relationship.entityBId == gone
                    }
                default:
                    return nil
                }
            })
    }
}

/// Every object of a paged list, failing past `limit`.
func collect<Object: PubNubDataSyncObject>(
    _ objects: PubNubDataSyncObjectSequence<Object>, limit: Int
) async throws -> [Object] {
    var all: [Object] = []
    for try await object in objects {
        all.append(object)
        if all.count > limit { throw PubNubError.liveViewTooLarge(limit: limit) }
    }
    return all
}

extension PubNubError.Reason {
    /// A live view would hold more objects than its ``PubNubLiveViewOptions/maximumObjects``.
    public static let liveViewTooLarge = PubNubError.Reason(rawValue: "liveViewTooLarge")
}

extension PubNubError {
    /// The error that ends a live view grown past its limit.
    static func liveViewTooLarge(limit: Int) -> PubNubError {
        PubNubError(
            reason: .liveViewTooLarge,
            message:
                "the live view would hold more than \(limit) objects (PubNubLiveViewOptions.maximumObjects); "
                + "narrow it or raise the limit")
    }
}

extension LiveViewAction {
    /// The view's answer to an event that left out `fields`: read again, keep what it holds.
    static func incomplete(_ fields: [String]) -> LiveViewAction {
        .reread(detail: "an event left out " + fields.joined(separator: ", "))
    }
}
