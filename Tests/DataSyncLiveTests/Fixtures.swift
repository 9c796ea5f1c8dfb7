import DataSyncLive
import DataSyncModels
import Foundation
import PubNubCore
import Realtime

/// Instants `seconds` after a fixed origin.
func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }

/// A membership of `user` in `channel` with the given timestamps.
func membership(
    _ id: String, user: String, channel: String = "general", created: Double, updated: Double? = nil,
    eTag: String? = nil, status: String? = nil
) -> PubNubDataSyncMembership {
    let updated = updated ?? created
    return PubNubDataSyncMembership(
        id: id, classVersion: 1, channelId: channel, userId: user, status: status, createdAt: at(created),
        updatedAt: at(updated), eTag: eTag ?? "e\(Int(updated * 1000))")
}

enum Events {
    /// A create or update event of `membership`, as it arrives on `channel`.
    static func upsert(
        _ membership: PubNubDataSyncMembership, on channel: String = "general", created: Bool = false,
        timetoken: Timetoken = 1
    ) -> PubNubDataSyncEvent {
        let relationship = PubNubDataSyncRelationship(
            id: membership.id, className: membership.className, classVersion: membership.classVersion,
            entityAId: membership.channelId, entityBId: membership.userId, status: membership.status,
            payload: membership.payload, createdAt: membership.createdAt, updatedAt: membership.updatedAt,
            expiresAt: membership.expiresAt, eTag: membership.eTag)
        return PubNubDataSyncEvent(
            change: created ? .relationshipCreated : .relationshipUpdated, kind: .membership,
            relationship: PubNubDataSyncRelationshipEvent(kind: .membership, relationship: relationship),
            className: "Membership", channel: channel, timetoken: timetoken)
    }

    /// A membership delete event, with the sides when the client's link memory knew them.
    static func deleteMembership(
        _ id: String, at deletedAt: Double, on channel: String = "general", endpoints: PubNubDataSyncEndpoints? = nil
    ) -> PubNubDataSyncEvent {
        PubNubDataSyncEvent(
            change: .relationshipDeleted, kind: .membership,
            removed: PubNubDataSyncRemovedObject(
                id: id, className: "Membership", deletedAt: at(deletedAt), endpoints: endpoints ?? .unknown),
            className: "Membership", channel: channel, timetoken: 1)
    }

    /// The delete event of a user or channel (its own, or fanned out to a linked object's channel).
    static func deleteEntity(
        _ id: String, kind: PubNubDataSyncKind, at deletedAt: Double, on channel: String = "general"
    ) -> PubNubDataSyncEvent {
        PubNubDataSyncEvent(
            change: .entityDeleted, kind: kind, removed: PubNubDataSyncRemovedObject(id: id, deletedAt: at(deletedAt)),
            channel: channel, timetoken: 1)
    }

    /// An update of a user, as it is fanned out to a channel it is a member of.
    static func userUpdated(_ id: String, at updated: Double, on channel: String = "general") -> PubNubDataSyncEvent {
        let entity = PubNubDataSyncEntity(
            id: id, className: "User", classVersion: 1, createdAt: at(0), updatedAt: at(updated), eTag: "u")
        return PubNubDataSyncEvent(
            change: .entityUpdated, kind: .user, entity: PubNubDataSyncEntityEvent(kind: .user, entity: entity),
            className: "User", channel: channel, timetoken: 1)
    }

    static func gap(_ reason: PubNubDataSyncGap.Reason = .tooManyEvents) -> PubNubDataSyncGap {
        PubNubDataSyncGap(reason: reason, status: status(.requestMessageCountExceeded, isError: true))
    }

    static func status(
        _ category: PubNubStatus.Category, isError: Bool = false, operation: PubNubStatus.Operation = .subscribe,
        information: String = ""
    ) -> PubNubStatus {
        PubNubStatus(
            category: category, operation: operation, isError: isError,
            errorData: isError ? PubNubStatus.ErrorData(information: information) : nil)
    }
}

extension PubNubLiveSnapshot {
    /// `id@eTag` of every object, in order.
    var versions: [String] { map { "\($0.id)@\($0.eTag)" } }
}
