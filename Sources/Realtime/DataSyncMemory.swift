package import Foundation
package import PubNubBase

/// The dedupe of DataSync events of one receiver (a subscription, a set, or the client).
///
/// A client subscribed to both sides of a link (or to an object and its neighbours) receives one
/// change once per channel. With this on (the default) a receiver gets it once: creates and
/// updates are recognized by kind, id, `updatedAt` and projection, deletes by kind, id and
/// `deletedAt` (a delete is the same on every projection channel). An event that left the
/// timestamp out is recognized by its eTag, or else by its publish timetoken, which only a copy
/// redelivered on the same channel shares: such copies on other channels may each arrive. The last ``window`` changes
/// are remembered; a copy arriving later than that is delivered again.
///
/// ```swift
/// subscription.dataSyncDeduplication = .off              // every copy, one per channel
/// pubnub.dataSyncDeduplication = .init(window: 10_000)   // a longer memory for the client listeners
/// ```
public struct PubNubDataSyncDeduplication: Hashable, Sendable {
    /// Whether copies are dropped.
    public var isEnabled: Bool
    /// How many recent changes are remembered to recognize copies (at least 1 when enabled).
    public var window: Int

    /// Creates a setting; on, remembering the last `window` changes.
    public init(isEnabled: Bool = true, window: Int = 1_000) {
        self.isEnabled = isEnabled
        self.window = window
    }

    /// On, remembering the last 1,000 changes: the default of every receiver.
    public static let `default` = PubNubDataSyncDeduplication()
    /// Off: every copy is delivered.
    public static let off = PubNubDataSyncDeduplication(isEnabled: false)
}

/// What recognizes two copies of one DataSync change.
package struct DataSyncChangeKey: Hashable, Sendable {
    /// What tells one change of an object from another.
    package enum Stamp: Hashable, Sendable {
        /// The object's `updatedAt` (creates and updates) or `deletedAt` (deletes).
        case written(Date)
        /// The version's eTag, for a create or update that left `updatedAt` out.
        case version(String)
        /// The envelope's timetoken, for an event that left out both: a copy delivered again on
        /// the same channel (a catch-up replay) is recognized, while copies on other channels,
        /// published with their own timetokens, may each arrive. Two different changes are never
        /// taken for one.
        case published(Timetoken)
    }

    var kind: String
    var id: String
    var stamp: Stamp
    /// `nil` for deletes, which every projection channel carries alike.
    var projection: String?
    var isDelete: Bool
}

extension PubNubDataSyncEvent {
    /// The key its copies share, or `nil` for an unknown change (never deduplicated).
    package var changeKey: DataSyncChangeKey? {
        func stamp(_ date: Date?, eTag: String? = nil) -> DataSyncChangeKey.Stamp {
            if let date { return .written(date) }
            if let eTag { return .version(eTag) }
            return .published(timetoken)
        }
        if let state = entity {
            return DataSyncChangeKey(
                kind: kind.rawValue, id: state.id, stamp: stamp(state.updatedAt, eTag: state.eTag),
                projection: projection, isDelete: false)
        }
        if let state = relationship {
            return DataSyncChangeKey(
                kind: kind.rawValue, id: state.id, stamp: stamp(state.updatedAt, eTag: state.eTag),
                projection: projection, isDelete: false)
        }
        if let removed {
            return DataSyncChangeKey(
                kind: kind.rawValue, id: removed.id, stamp: stamp(removed.deletedAt), projection: nil, isDelete: true)
        }
        return nil
    }
}

/// The per-receiver dedupe state.
package struct DataSyncDeduplicator: Sendable {
    package private(set) var setting: PubNubDataSyncDeduplication
    private var seen: BoundedRecentMap<DataSyncChangeKey, Bool>

    package init(setting: PubNubDataSyncDeduplication = .default) {
        self.setting = setting
        seen = BoundedRecentMap(capacity: setting.isEnabled ? max(1, setting.window) : 0)
    }

    /// Replaces the setting (forgetting what was seen when the window changes).
    package mutating func update(_ setting: PubNubDataSyncDeduplication) {
        guard setting != self.setting else { return }
        self = DataSyncDeduplicator(setting: setting)
    }

    /// Whether `event` should be delivered: not a copy of a change seen within the window.
    package mutating func admit(_ event: PubNubDataSyncEvent) -> Bool {
        guard setting.isEnabled, let key = event.changeKey else { return true }
        return seen.insertIfAbsent(key, value: true)
    }
}

/// The client's memory of the sides of memberships and relationships, learned from their create
/// and update events, so a delete event (which carries only an id) can name them.
///
/// Keeps the last `capacity` links written (10,000 by default); a delete keeps its entry, so
/// the copy of the delete on the other side's channel names the sides too.
package struct DataSyncLinkMemory: Sendable {
    package static let defaultCapacity = 10_000

    private struct Sides: Sendable {
        var a: String
        var b: String
    }

    private var links: BoundedRecentMap<String, Sides>

    package init(capacity: Int = Self.defaultCapacity) {
        links = BoundedRecentMap(capacity: capacity)
    }

    package var count: Int { links.count }

    /// Learns from `event` and fills in the sides of a deleted link when known.
    package mutating func process(_ event: PubNubDataSyncEvent) -> PubNubDataSyncEvent {
        if let state = event.relationship {
            links.set(Sides(a: state.entityAId, b: state.entityBId), for: state.id)
            return event
        }
        guard event.change == .relationshipDeleted, var removed = event.removed else { return event }
        var event = event
        if let sides = links[removed.id] {
            removed.endpoints = .known(entityAId: sides.a, entityBId: sides.b)
        } else {
            removed.endpoints = .unknown
        }
        event.removed = removed
        return event
    }
}
