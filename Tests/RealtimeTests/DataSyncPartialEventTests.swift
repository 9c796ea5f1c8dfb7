import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Realtime
import Testing

/// The subscribe items of the three envelope shapes PubNub's PHP and C# SDK tests deliver, as
/// they appear there (and in the spec's vectors): nothing added, nothing taken away.
private enum Shapes {
    /// PHP `testDataSyncEventReachesTheListener`: an entity create with no timestamps or eTag, and
    /// `classVersion` as the string "1".
    static let entityCreate = """
        {"a":"1","f":0,"e":5,"i":"publisher-uuid","p":{"t":"14921661962867845","r":12},"k":"demo","c":"test",
         "u":[],"b":"test",
         "d":{"version":"3.0",
              "metadata":{"event":"create","source":"data-sync","type":"entity","className":"vehicle",
                          "classVersion":"1","classLevel":"SubKey"},
              "data":{"id":"vehicle-1","status":"active","payload":{"make":"Toyota"}}}}
        """

    /// PHP `testMembershipEventReachesTheListener`: a membership update that is only the id and
    /// the two sides.
    static let membershipUpdate = """
        {"a":"1","f":0,"e":5,"i":"publisher-uuid","p":{"t":"14921661962867845","r":12},"k":"demo","c":"test",
         "u":[],"b":"test",
         "d":{"metadata":{"event":"update","source":"data-sync","type":"membership","className":"Membership",
                          "classVersion":"1","classLevel":"Global"},
              "data":{"id":"mem-1","channelId":"channel-1","userId":"user-1"}}}
        """

    /// The older relationship create (C# live test): metadata with only event, source and type,
    /// data with the id and the two sides, no class details, no timestamps.
    static let relationshipCreate = """
        {"a":"4","f":0,"e":5,"p":{"t":"17000000000000077","r":3},"k":"demo","c":"course-1",
         "d":{"metadata":{"event":"create","source":"data-sync","type":"relationship"},
              "data":{"id":"enrol-1","entityAId":"course-1","entityBId":"alice"}}}
        """

    static func envelope(_ text: String) throws -> SubscribeEnvelope {
        let item = try JSONValue(parsing: text)
        let body: JSONValue = ["t": ["t": "17000000000000100", "r": 3], "m": [item]]
        guard case .decoded(let response) = SubscribeResponseDecoder.decode(try body.jsonBytes()),
            let envelope = response.envelopes.first
        else { throw PubNubError.malformedResponse("the item did not decode", statusCode: nil) }
        return envelope
    }

    static func event(_ text: String) throws -> PubNubDataSyncEvent {
        try #require(PubNubDataSyncEvent(envelope: try envelope(text)))
    }
}

@Suite("DataSync events that leave fields out are delivered as the change they name")
struct DataSyncPartialEventTests {
    @Test("an entity create without timestamps or eTag, classVersion \"1\": entityCreated with what it carried")
    func entityCreateWithoutTimestamps() throws {
        let event = try Shapes.event(Shapes.entityCreate)
        #expect(event.change == .entityCreated)
        #expect(event.kind == .custom)
        #expect(event.className == "vehicle")
        #expect(event.classLevel == .subKey)
        #expect(event.classVersion == 1)
        #expect(event.version == "3.0")
        #expect(event.objectId == "vehicle-1")
        let state = try #require(event.entity)
        #expect(state.id == "vehicle-1")
        #expect(state.className == "vehicle")
        #expect(state.classVersion == 1)
        #expect(state.status == "active")
        #expect(state.payload == ["make": "Toyota"])
        // Absent stays absent: no stand-in timestamp or eTag.
        #expect(state.createdAt == nil && state.updatedAt == nil && state.eTag == nil && state.expiresAt == nil)
        #expect(state.missingFields == ["createdAt", "updatedAt", "eTag"])
        #expect(!state.isComplete)
        #expect(state.entity == nil && state.object == nil, "the models require what the event left out")
        #expect(event.relationship == nil && event.removed == nil)
    }

    @Test("a membership update of only id, channelId and userId: relationshipUpdated, sides mapped to A and B")
    func membershipUpdateOfSidesOnly() throws {
        let event = try Shapes.event(Shapes.membershipUpdate)
        #expect(event.change == .relationshipUpdated)
        #expect(event.kind == .membership)
        let state = try #require(event.relationship)
        #expect(state.id == "mem-1")
        #expect(state.entityAId == "channel-1" && state.entityBId == "user-1")
        #expect(state.channelId == "channel-1" && state.userId == "user-1")
        #expect(state.className == "Membership")
        #expect(state.classVersion == 1)
        #expect(state.status == nil && state.payload == nil)
        #expect(state.missingFields == ["createdAt", "updatedAt", "eTag"])
        #expect(state.object == nil)
        #expect(event.entity == nil)
    }

    @Test("the older relationship create with no class and no timestamps: relationshipCreated, custom kind")
    func olderRelationshipCreate() throws {
        let event = try Shapes.event(Shapes.relationshipCreate)
        #expect(event.change == .relationshipCreated)
        #expect(event.kind == .custom)
        #expect(event.className == nil && event.classLevel == nil && event.classVersion == nil)
        let state = try #require(event.relationship)
        #expect(state.id == "enrol-1")
        #expect(state.entityAId == "course-1" && state.entityBId == "alice")
        #expect(state.channelId == nil && state.userId == nil, "not a membership")
        #expect(state.className == nil && state.classVersion == nil)
        #expect(state.missingFields == ["className", "classVersion", "createdAt", "updatedAt", "eTag"])
        #expect(state.relationship == nil)
    }

    @Test("a delete without deletedAt is entityDeleted with the date absent")
    func deleteWithoutDeletedAt() throws {
        let text = """
            {"a":"4","f":0,"e":5,"p":{"t":"17000000000000078","r":3},"k":"demo","c":"c1",
             "d":{"metadata":{"event":"delete","source":"data-sync","type":"channel"},"data":{"id":"c1"}}}
            """
        let event = try Shapes.event(text)
        #expect(event.change == .entityDeleted)
        #expect(event.removed?.id == "c1")
        #expect(event.removed?.deletedAt == nil)
    }

    @Test("a complete event still gives the model types")
    func completeEvent() throws {
        let text = """
            {"a":"4","f":0,"e":5,"p":{"t":"17000000000000079","r":3},"k":"demo","c":"alice",
             "d":{"version":"1.0","metadata":{"event":"update","source":"data-sync","type":"user","classVersion":1},
                  "data":{"id":"alice","createdAt":"2026-09-28T05:55:55.583Z","updatedAt":"2026-09-28T05:55:57.821Z",
                          "eTag":"e1"}}}
            """
        let state = try #require(try Shapes.event(text).entity)
        #expect(state.isComplete)
        guard case .user(let user)? = state.object else {
            Issue.record("expected a user, got \(String(describing: state.object))")
            return
        }
        #expect(user.id == "alice" && user.className == "User" && user.eTag == "e1")
    }

    @Test("dedupe without updatedAt: the same envelope again is a copy, a different change is not")
    func dedupeFallsBack() throws {
        let first = try Shapes.event(Shapes.membershipUpdate)
        var later = first
        later.timetoken += 1
        // With an eTag but no updatedAt, the version tells copies apart, whatever their timetokens.
        var tagged = first
        tagged.relationship?.eTag = "v2"
        var taggedCopy = tagged
        taggedCopy.timetoken += 50
        taggedCopy.channel = "user-1"
        let removed = PubNubDataSyncEvent(
            change: .entityDeleted, kind: .channel, removed: PubNubDataSyncRemovedObject(id: "c1", deletedAt: nil),
            channel: "c1", timetoken: 5)
        var removedLater = removed
        removedLater.timetoken = 6
        var deduplicator = DataSyncDeduplicator()
        let admitted = [first, first, later, tagged, taggedCopy, removed, removed, removedLater].map {
            deduplicator.admit($0)
        }
        // The same envelope replayed is a copy; another change of the same link never is.
        #expect(admitted == [true, false, true, true, false, true, false, true])
    }

    @Test("through a client: each shape reaches onDataSync once, and the warning handler hears once per shape")
    func throughClient() async throws {
        let service = FakeService()
        let warnings = Recorder<PubNubWarning>()
        let pubnub = makeClient(service, clock: ManualClock()) { configuration in
            configuration.warningHandler = { warnings.append($0) }
        }
        let events = Recorder<PubNubDataSyncEvent>()
        pubnub.onDataSync = { events.append($0) }
        let items = try [Shapes.entityCreate, Shapes.membershipUpdate, Shapes.relationshipCreate].map {
            try JSONValue(parsing: $0)
        }
        // The entity create again, as another change (a later timetoken): same shape, no new warning.
        var again = try #require(items.first?.objectValue)
        again["p"] = ["t": "14921661962867999", "r": 12]
        service.push(Answer.subscribe("100"))
        service.push(Answer.subscribe("200", items + [.object(again)]))
        pubnub.subscribe(to: ["test", "course-1"])
        #expect(await events.waitFor(4))
        #expect(
            events.all.map(\.change) == [.entityCreated, .relationshipUpdated, .relationshipCreated, .entityCreated])
        #expect(warnings.all.count == 3, "\(warnings.all)")
        #expect(warnings.all.allSatisfy { $0.code == .incompleteDataSyncEvent })
        #expect(warnings.all.first?.message.contains("createdAt, updatedAt, eTag") == true)
        pubnub.unsubscribeAll()
    }
}
