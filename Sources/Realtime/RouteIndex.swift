/// The stores one subscriber delivers to when an event came for one of `names`: for a
/// ``Subscription``, its own store; for a member of a ``SubscriptionSet``, the set's store and the
/// member's.
package struct SubscriberRoute: Sendable {
    package var names: SubscriptionNames
    package var stores: [ListenerStore]

    package init(names: SubscriptionNames, stores: [ListenerStore]) {
        self.names = names
        self.stores = stores
    }
}

/// Which listener stores an event reaches, looked up by the name it came for, so that a message
/// for one channel costs the same with ten subscriptions as with ten thousand.
///
/// It answers what ``SubscriptionNames/matches(match:channel:)`` answers for every route, without
/// asking each route: exact names (channels and groups alike) are keys of one dictionary, and a
/// wildcard pattern is found from the concrete channel by building the patterns that could cover
/// it (`a.b.c` is covered only by `a.*` and `a.b.*`), so the work grows with the depth of the
/// channel's name, not with the number of subscriptions.
package struct RouteIndex: Sendable {
    private struct Entry: Sendable {
        let owner: ObjectIdentifier
        let stores: [ListenerStore]
    }

    private var exact: [String: [Entry]] = [:]
    private var patterns: [String: [Entry]] = [:]
    private var keys: [ObjectIdentifier: (exact: [String], patterns: [String])] = [:]

    /// Route entries examined by lookups since the index was made: what a test counts to show a
    /// lookup touches the matching subscriptions only.
    package private(set) var visited = 0

    package init() {}

    /// Replaces whatever `owner` routed before with `routes`.
    package mutating func set(_ routes: [SubscriberRoute], for owner: ObjectIdentifier) {
        remove(owner)
        var exactKeys: [String] = []
        var patternKeys: [String] = []
        for route in routes {
            let entry = Entry(owner: owner, stores: route.stores)
            for name in Set(route.names.channels + route.names.groups) {
                exact[name, default: []].append(entry)
                exactKeys.append(name)
            }
            for name in Set(route.names.channels) where ChannelName(name).isWildcard {
                patterns[name, default: []].append(entry)
                patternKeys.append(name)
            }
        }
        keys[owner] = (exactKeys, patternKeys)
    }

    /// Forgets every route of `owner`.
    package mutating func remove(_ owner: ObjectIdentifier) {
        guard let old = keys.removeValue(forKey: owner) else { return }
        Self.drop(owner, under: old.exact, from: &exact)
        Self.drop(owner, under: old.patterns, from: &patterns)
    }

    private static func drop(_ owner: ObjectIdentifier, under names: [String], from table: inout [String: [Entry]]) {
        for name in Set(names) {
            table[name]?.removeAll { $0.owner == owner }
            if table[name]?.isEmpty == true { table[name] = nil }
        }
    }

    /// Every store an event that came for `match` (`b ?? c`) on `channel` reaches, each once, in
    /// the order the routes were added.
    package mutating func stores(forMatch match: String, channel: String) -> [ListenerStore] {
        var found: [ListenerStore] = []
        var seen: Set<ObjectIdentifier> = []
        func take(_ entries: [Entry]?) {
            guard let entries else { return }
            visited &+= entries.count
            for entry in entries {
                for store in entry.stores where seen.insert(ObjectIdentifier(store)).inserted {
                    found.append(store)
                }
            }
        }
        take(exact[match])
        guard !patterns.isEmpty else { return found }
        var candidates = Self.coveringPatterns(of: match)
        if channel != match { candidates.formUnion(Self.coveringPatterns(of: channel)) }
        candidates.remove(match)
        for pattern in candidates.sorted() { take(patterns[pattern]) }
        return found
    }

    /// The wildcard patterns that match the concrete name `name` (see ``ChannelName/matches(_:)``):
    /// for each `.` that has something after it, the prefix through it followed by `*`, and for a
    /// presence channel the same patterns with the presence suffix.
    static func coveringPatterns(of name: String) -> Set<String> {
        let concrete = ChannelName(name)
        let base = concrete.base.rawValue
        let suffix = concrete.isPresence ? ChannelName.presenceSuffix : ""
        var result: Set<String> = []
        var index = base.startIndex
        while index < base.endIndex {
            let next = base.index(after: index)
            if base[index] == ".", next < base.endIndex {
                let pattern = String(base[..<next]) + "*" + suffix
                if ChannelName(pattern).isWildcard { result.insert(pattern) }
            }
            index = next
        }
        if ChannelName(name).isWildcard { result.insert(name) }
        return result
    }
}
