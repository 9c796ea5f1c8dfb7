public import DataSyncModels
import Foundation

/// What a live view holds at one moment: its objects in ascending `id` order, the change since the
/// snapshot before, and whether the view knows itself to be complete and current.
///
/// A snapshot is a collection of the view's objects, so it can be iterated, counted and indexed;
/// ``subscript(id:)`` finds one by id. Objects are ordered by `id` as Swift compares strings
/// (`"a" < "b"`), whatever order the service or the events brought them in.
///
/// ```swift
/// for try await snapshot in try pubnub.liveViews.memberships(ofChannel: "general") {
///     print(snapshot.count, "members", snapshot.isCurrent ? "" : "(stale: \(snapshot.staleness!))")
///     for id in snapshot.change.inserted { print("joined:", snapshot[id: id]?.userId ?? id) }
/// }
/// ```
public struct PubNubLiveSnapshot<Element: PubNubDataSyncObject>: RandomAccessCollection, Sendable {
    /// The objects' ids, ascending.
    public let ids: [String]
    private let objects: ViewObjects<Element>
    /// What changed since the snapshot before (for the first one: everything it holds, as inserted).
    public let change: PubNubLiveChange
    /// Why the view may not be current, or `nil` when it is.
    public let staleness: PubNubLiveStaleness?
    /// Whether a complete read (every page) has succeeded: the objects are the service's state as of
    /// that read plus every change received since. `false` only before the first read finished
    /// (the view then holds only what events brought, usually nothing).
    public let isComplete: Bool
    /// The projection whose view of the objects this is: `__default__` for the base projection, or
    /// the name given to the view. Events on a projection channel carry only that projection's
    /// fields; a REST read carries what the token's `pn-projections` allow (see
    /// Documentation/LiveViews.md).
    public let projection: String
    /// The number of the view state this snapshot shows, from 1: the view counts a new state
    /// whenever something it received (an event, a read, a change of ``staleness``) changed its
    /// objects or its freshness. A reader that takes every state sees 1, 2, 3, …; when the reader
    /// was slower than the changes, the states it did not take are merged into this one and the
    /// number jumps (from 4 to 9: this snapshot holds what states 5 to 8 changed, in ``change``).
    public let sequence: Int

    package init(
        ids: [String], objects: ViewObjects<Element>, change: PubNubLiveChange, staleness: PubNubLiveStaleness?,
        isComplete: Bool, projection: String, sequence: Int
    ) {
        self.ids = ids
        self.objects = objects
        self.change = change
        self.staleness = staleness
        self.isComplete = isComplete
        self.projection = projection
        self.sequence = sequence
    }

    /// Whether the view is complete and knows of nothing it may have missed: no gap, interruption
    /// or failed read since its last complete read.
    public var isCurrent: Bool { staleness == nil && isComplete }

    /// The object with `id`, or `nil` when the view does not hold it.
    public subscript(id id: String) -> Element? { objects[id] }

    /// The first object: for a view of one object, that object (`nil` while it does not exist).
    public var value: Element? { ids.first.flatMap { objects[$0] } }

    /// The objects in ascending `id` order, as an array.
    public var values: [Element] { ids.compactMap { objects[$0] } }

    /// The position of the first object.
    public var startIndex: Int { ids.startIndex }
    /// The position after the last object.
    public var endIndex: Int { ids.endIndex }
    /// The object at `position` (in ascending `id` order).
    public subscript(position: Int) -> Element {
        // `ids` and `objects` are built together from one store, so every listed id has its object;
        // no service answer or caller argument can make them disagree (an out-of-range `position`
        // traps as any Collection's subscript does).
        guard let object = objects[ids[position]] else {
            preconditionFailure("a snapshot holds every id it lists")  // safe: ids and objects are built together
        }
        return object
    }
}

/// The ids a snapshot inserted, updated and removed, each list ascending.
///
/// Measured against the snapshot delivered before it: an object added and removed again between
/// two delivered snapshots appears in neither list, one removed and added back is `updated`.
public struct PubNubLiveChange: Hashable, Sendable, CustomStringConvertible {
    /// Objects the view did not hold before.
    public var inserted: [String]
    /// Objects the view held before, now at a newer version.
    public var updated: [String]
    /// Objects the view no longer holds.
    public var removed: [String]

    /// Creates a change.
    public init(inserted: [String] = [], updated: [String] = [], removed: [String] = []) {
        self.inserted = inserted
        self.updated = updated
        self.removed = removed
    }

    /// Whether no object changed (the snapshot reports a change of freshness only).
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && removed.isEmpty }

    /// The three lists.
    public var description: String { "PubNubLiveChange(+\(inserted) ~\(updated) -\(removed))" }
}

/// Why a live view may not show the service's current state, and what it does about it.
///
/// A view is stale from the moment it learns it may have missed something until a new complete
/// read has been merged with the events that came during it. Values stay on screen while stale and
/// keep receiving the changes that do arrive; no value ever moves back to an older version.
public struct PubNubLiveStaleness: Hashable, Sendable, CustomStringConvertible {
    /// The kind of reason. An open set: compare with the static members.
    public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The reason's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The reason's name.
        public var description: String { rawValue }

        /// The subscribe loop reported that events may be missing (``PubNubLiveStaleness/detail``
        /// names the gap: `tooManyEvents`, `unreadableEvents`, `couldNotResume`); the view reads
        /// again.
        public static let gap = Reason(rawValue: "gap")
        /// The subscribe loop is not receiving the view's channel (a lost long-poll, `disconnect()`,
        /// a URI too long; ``PubNubLiveStaleness/detail`` is the status category); once it receives
        /// again the view reads again.
        public static let interrupted = Reason(rawValue: "interrupted")
        /// The service refused the token (403, or 401 without one), to the subscribe loop or a
        /// read; the view reads again with backoff, and at once after `pubnub.set(token:)`.
        public static let accessDenied = Reason(rawValue: "accessDenied")
        /// A read failed for another reason that may pass (network, timeout, 429, 5xx); the view
        /// reads again with backoff.
        public static let readFailed = Reason(rawValue: "readFailed")
        /// Events arrived faster than the view could buffer them during a read; it reads again.
        public static let overflow = Reason(rawValue: "overflow")
        /// An event about the view's objects left out what applying it safely needs (`updatedAt`,
        /// `createdAt`, the eTag, the class, or a delete's `deletedAt`;
        /// ``PubNubLiveStaleness/detail`` names them): the view keeps the values it holds, never
        /// filling in a guess, and reads again.
        public static let incompleteEvent = Reason(rawValue: "incompleteEvent")
    }

    /// The kind of reason.
    public var reason: Reason
    /// What exactly happened: a gap reason, a status category, or the error's message.
    public var detail: String
    /// How many reads in a row have failed (0 when none has).
    public var failedReads: Int

    /// Creates a staleness.
    public init(reason: Reason, detail: String, failedReads: Int = 0) {
        self.reason = reason
        self.detail = detail
        self.failedReads = failedReads
    }

    /// The reason, the detail and the failed reads.
    public var description: String {
        "\(reason)(\(detail)\(failedReads > 0 ? ", \(failedReads) failed read(s)" : ""))"
    }
}

/// The order a live view's objects are compared in to decide which of two versions is newer.
///
/// `updatedAt` first; the `eTag` (compared as a string) breaks a tie, so every client settles on the
/// same version when two writes share a timestamp. Exposed for apps that merge their own caches the
/// same way.
public enum PubNubLiveVersion {
    /// Whether `candidate` is a newer version of the same object than `held`.
    public static func isNewer<Object: PubNubDataSyncObject>(_ candidate: Object, than held: Object) -> Bool {
        if candidate.updatedAt != held.updatedAt { return candidate.updatedAt > held.updatedAt }
        return candidate.eTag > held.eTag
    }
}
