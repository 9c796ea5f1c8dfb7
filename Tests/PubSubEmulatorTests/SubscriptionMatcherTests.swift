import Testing

@testable import DataSyncEmulator

/// The matcher keeps a short list of concrete names as the request's own array and a long one
/// as a set: both forms must match exactly alike.
@Suite("Subscribe matcher: short list and set")
struct SubscriptionMatcherTests {
    private static func names(_ count: Int) -> [String] {
        (0..<count).map { "room-number-\($0)" }
    }

    @Test(arguments: [1, Subscription.Matcher.shortList, Subscription.Matcher.shortList + 1, 40])
    func everyConcreteNameMatchesDirectlyAndNothingElseDoes(count: Int) {
        let channels = Self.names(count)
        let matcher = Subscription(channels: channels, groups: []).matcher { _ in [] }
        for name in channels {
            #expect(matcher.match(name) == .some(nil))
        }
        for other in ["room-number-\(count)", "room-number", "", "room-number-0-pnpres"] {
            #expect(matcher.match(other) == nil)
        }
        #expect(matcher.direct.isEmpty == (count > Subscription.Matcher.shortList))
        #expect(matcher.directSet.isEmpty == (count <= Subscription.Matcher.shortList))
    }

    /// Issue 34 §2: a held long-poll on a few channels keeps no copy of their names: the matcher
    /// shares the request's array.
    @Test func aShortListSharesTheSubscriptionsArray() {
        let subscription = Subscription(channels: Self.names(3), groups: [])
        let matcher = subscription.matcher { _ in [] }
        let shared = subscription.channels.withUnsafeBufferPointer { channels in
            matcher.direct.withUnsafeBufferPointer { direct in channels.baseAddress == direct.baseAddress }
        }
        #expect(shared)
    }

    @Test(arguments: [2, 20])
    func wildcardsGroupsAndPresenceStillMatchBesideConcreteNames(count: Int) {
        let concrete = Self.names(count)
        let matcher = Subscription(channels: concrete + ["sports.*", "news.*-pnpres"], groups: ["team"]).matcher {
            $0 == "team" ? ["member-a"] : []
        }
        #expect(matcher.match(concrete[count - 1]) == .some(nil))
        #expect(matcher.match("sports.tennis") == .some("sports.*"))
        #expect(matcher.match("news.local-pnpres") == .some("news.*-pnpres"))
        #expect(matcher.match("member-a") == .some("team"))
        #expect(matcher.match("weather") == nil)
    }
}
