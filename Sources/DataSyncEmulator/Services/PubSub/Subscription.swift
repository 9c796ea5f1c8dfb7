/// What one subscribe request asked for: channels, presence channels, wildcard patterns and
/// channel groups (with their `-pnpres` forms), parsed from the path and `channel-group`.
struct Subscription: Sendable {
    /// Names as requested, in path order, empty names dropped.
    var channels: [String]
    var groups: [String]

    /// Concrete channels the subscriber is present on: no `-pnpres`, no wildcard.
    var presenceTargets: [String] {
        channels.filter { PubSubNames.presenceBase($0) == nil && !PubSubNames.isWildcard($0) }
    }

    /// Groups the subscriber is present through (no `-pnpres` forms).
    var presenceGroups: [String] { groups.filter { PubSubNames.presenceBase($0) == nil } }

    /// The resolved matcher for this request, with group memberships as they are now.
    func matcher(groupMembers: (String) -> [String]) -> Matcher {
        var direct: [String] = []
        var patterns: [String] = []
        var presencePatterns: [String] = []
        for name in channels {
            if let base = PubSubNames.presenceBase(name), PubSubNames.isWildcard(base) {
                presencePatterns.append(base)
            } else if PubSubNames.isWildcard(name) {
                patterns.append(name)
            } else {
                direct.append(name)
            }
        }
        // Every name concrete (the usual subscribe): share the request's own array instead of
        // copying the names into a new collection for each held long-poll.
        if direct.count == channels.count { direct = channels }
        var viaGroup: [String: String] = [:]
        for group in groups {
            if let base = PubSubNames.presenceBase(group) {
                for member in groupMembers(base) where viaGroup[member + PubSubNames.presenceSuffix] == nil {
                    viaGroup[member + PubSubNames.presenceSuffix] = group
                }
            } else {
                for member in groupMembers(group) where viaGroup[member] == nil { viaGroup[member] = group }
            }
        }
        return Matcher(
            direct: direct.count > Matcher.shortList ? [] : direct,
            directSet: direct.count > Matcher.shortList ? Set(direct) : [], patterns: patterns,
            presencePatterns: presencePatterns, viaGroup: viaGroup)
    }

    /// Decides whether an event's channel reaches the subscriber and what `b` it carries.
    struct Matcher: Sendable {
        /// Up to this many concrete names are searched in order: cheaper than hashing, and they
        /// share the request's array of names, so a held long-poll keeps no set of its own.
        static let shortList = 8
        /// Concrete names when there are at most ``shortList`` of them (else empty).
        var direct: [String]
        /// Concrete names when there are more (else empty).
        var directSet: Set<String>
        var patterns: [String]
        var presencePatterns: [String]
        var viaGroup: [String: String]

        /// nil when the channel does not match; `.some(nil)` for a direct match; `.some(name)` with
        /// the wildcard pattern, group or presence form that matched otherwise.
        func match(_ channel: String) -> String?? {
            if directSet.isEmpty ? direct.contains(channel) : directSet.contains(channel) { return .some(nil) }
            if let base = PubSubNames.presenceBase(channel) {
                if let pattern = presencePatterns.first(where: { PubSubNames.wildcard($0, matches: base) }) {
                    return .some(pattern + PubSubNames.presenceSuffix)
                }
            } else if let pattern = patterns.first(where: { PubSubNames.wildcard($0, matches: channel) }) {
                return .some(pattern)
            }
            if let group = viaGroup[channel] { return .some(group) }
            return nil
        }

        func accepts(_ channel: String) -> Bool { match(channel) != nil }
    }
}
