import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubBase
import PubNubCore
import Realtime
import Testing
import Transport

// MARK: - Wire helpers

private let created = "2026-09-28T05:55:55.583771Z"
private let updated = "2026-09-28T05:55:57.821736Z"
private let deleted = "2026-09-28T05:56:25.631142Z"

private func date(_ text: String) -> Date {
    ISO8601Timestamp.date(from: text) ?? .distantPast
}

/// The `d` of a DataSync item.
private func dataSync(
    _ event: JSONValue?, _ type: JSONValue?, className: JSONValue? = nil, level: JSONValue? = nil,
    version: JSONValue? = 1, source: JSONValue = "data-sync", data: JSONValue
) -> JSONValue {
    var metadata: [String: JSONValue] = ["source": source]
    if let event { metadata["event"] = event }
    if let type { metadata["type"] = type }
    if let className { metadata["className"] = className }
    if let level { metadata["classLevel"] = level }
    if let version { metadata["classVersion"] = version }
    return ["version": "1.0", "metadata": .object(metadata), "data": data]
}

/// A full object as create and update events carry it (no class fields), plus `extra`.
private func state(_ id: String, _ extra: [String: JSONValue] = [:]) -> JSONValue {
    var fields: [String: JSONValue] = [
        "id": .string(id), "createdAt": .string(created), "updatedAt": .string(updated), "eTag": "3w5e111z2x54m",
        "expiresAt": "2027-09-29T00:00:00Z", "payload": ["name": "A"],
    ]
    fields.merge(extra) { _, new in new }
    return .object(fields)
}

private func removal(_ id: String) -> JSONValue { ["id": .string(id), "deletedAt": .string(deleted)] }

private func item(
    _ payload: JSONValue, channel: String = "alice", tt: String = "17905749563923636", match: String? = nil
) -> JSONValue {
    var object: [String: JSONValue] = [
        "a": "4", "f": 0, "e": 5, "p": ["t": .string(tt), "r": 21], "k": "demo", "c": .string(channel),
        "d": payload,
    ]
    if let match { object["b"] = .string(match) }
    return .object(object)
}

/// Decodes `items` from the bytes of a subscribe answer, as the loop does.
private func decodeEvents(_ items: [JSONValue]) -> [PubNubEvent] {
    let body = Answer.subscribe("17905749563923637", items).body
    guard case .decoded(let response) = SubscribeResponseDecoder.decode(body) else {
        Issue.record("the answer did not decode")
        return []
    }
    return response.envelopes.map(PubNubEvent.init(envelope:))
}

private func decodeOne(_ payload: JSONValue, channel: String = "alice") -> PubNubDataSyncEvent? {
    guard case .dataSync(let event)? = decodeEvents([item(payload, channel: channel)]).first else { return nil }
    return event
}

/// A one-line account of an event for the tables.
private func summary(_ event: PubNubDataSyncEvent) -> String {
    var parts: [String] = []
    switch event.change {
    case .entityCreated: parts.append("entityCreated")
    case .entityUpdated: parts.append("entityUpdated")
    case .entityDeleted: parts.append("entityDeleted")
    case .relationshipCreated: parts.append("relationshipCreated")
    case .relationshipUpdated: parts.append("relationshipUpdated")
    case .relationshipDeleted: parts.append("relationshipDeleted")
    case .unknown: parts.append("unknown")
    }
    parts.append(event.kind.rawValue)
    parts.append(event.className ?? "-")
    parts.append(event.classLevel?.rawValue ?? "-")
    parts.append(event.classVersion.map(String.init) ?? "-")
    if let entity = event.entity {
        switch entity.object {
        case .user(let user)?: parts.append("user:\(user.id)")
        case .channel(let channel)?: parts.append("channel:\(channel.id)")
        case .entity(let value)?: parts.append("entity:\(value.id)")
        case nil: parts.append("partial:\(entity.id) missing \(entity.missingFields)")
        }
    }
    if let relationship = event.relationship {
        switch relationship.object {
        case .membership(let membership)?:
            parts.append("membership:\(membership.id) \(membership.channelId)/\(membership.userId)")
        case .relationship(let value)?:
            parts.append("relationship:\(value.id) \(value.entityAId)/\(value.entityBId)")
        case nil:
            parts.append(
                "partial:\(relationship.id) \(relationship.entityAId)/\(relationship.entityBId) "
                    + "missing \(relationship.missingFields)")
        }
    }
    if let removed = event.removed { parts.append("removed:\(removed.id)") }
    return parts.joined(separator: " ")
}

private let membershipSides: [String: JSONValue] = ["channelId": "chan-1", "userId": "alice"]
private let relationshipSides: [String: JSONValue] = ["entityAId": "course-1", "entityBId": "alice"]

// MARK: - Decoding

@Suite("DataSync events: decoding the e 5 envelope")
struct DataSyncDecodingTests {
    /// One kind of object as the current form sends it, and what its events must carry.
    struct KindRow {
        var type, className, level, id: String
        var sides: [String: JSONValue] = [:]
        /// `entity` or `relationship`: the first half of the change's name.
        var family: String
        var kind: String
        /// The object's summary in a create or update.
        var object: String
    }

    /// Every kind's create, update and delete, current form.
    static let everyKindAndChange: [(String, JSONValue, String)] = [
        KindRow(
            type: "user", className: "User", level: "Global", id: "alice", family: "entity", kind: "user",
            object: "user:alice"),
        KindRow(
            type: "channel", className: "Channel", level: "Global", id: "c1", family: "entity", kind: "channel",
            object: "channel:c1"),
        KindRow(
            type: "entity", className: "JSCustomer", level: "SubKey", id: "e1", family: "entity", kind: "custom",
            object: "entity:e1"),
        KindRow(
            type: "membership", className: "Membership", level: "Global", id: "m1", sides: membershipSides,
            family: "relationship", kind: "membership", object: "membership:m1 chan-1/alice"),
        KindRow(
            type: "relationship", className: "Enrolled", level: "SubKey", id: "r1", sides: relationshipSides,
            family: "relationship", kind: "custom", object: "relationship:r1 course-1/alice"),
    ].flatMap { row in
        [("create", "Created"), ("update", "Updated"), ("delete", "Deleted")].map { event, change in
            let isDelete = event == "delete"
            let data = isDelete ? removal(row.id) : state(row.id, row.sides)
            let object = isDelete ? "removed:\(row.id)" : row.object
            return (
                "\(row.type) \(event)",
                dataSync(
                    .string(event), .string(row.type), className: .string(row.className), level: .string(row.level),
                    data: data),
                "\(row.family)\(change) \(row.kind) \(row.className) \(row.level) 1 \(object)"
            )
        }
    }

    /// A subclass, and the older and odd spellings the decoder still reads.
    static let otherForms: [(String, JSONValue, String)] = [
        (
            "user subclass", dataSync("update", "user", className: "Employee", level: "SubKey", data: state("bob")),
            "entityUpdated user Employee SubKey 1 user:bob"
        ),
        // Older spellings.
        (
            "legacy type entity for a Global User",
            dataSync("update", "entity", className: "User", level: "Global", data: state("alice")),
            "entityUpdated user User Global 1 user:alice"
        ),
        (
            "legacy type entity for a Global Channel (any case)",
            dataSync("create", "entity", className: "channel", level: "Global", data: state("c1")),
            "entityCreated channel channel Global 1 channel:c1"
        ),
        (
            "a SubKey class named User is custom",
            dataSync("create", "entity", className: "User", level: "SubKey", data: state("u9")),
            "entityCreated custom User SubKey 1 entity:u9"
        ),
        (
            "legacy type relationship for a Global Membership, sides as A/B",
            dataSync(
                "create", "relationship", className: "Membership", level: "Global",
                data: state("m1", ["entityAId": "chan-1", "entityBId": "alice"])),
            "relationshipCreated membership Membership Global 1 membership:m1 chan-1/alice"
        ),
        (
            "type membership with sides as A/B",
            dataSync(
                "update", "membership", className: "Membership", level: "Global",
                data: state("m1", ["entityAId": "chan-1", "entityBId": "alice"])),
            "relationshipUpdated membership Membership Global 1 membership:m1 chan-1/alice"
        ),
        (
            "membership without className defaults to Membership",
            dataSync("create", "membership", data: state("m1", membershipSides)),
            "relationshipCreated membership - - 1 membership:m1 chan-1/alice"
        ),
        (
            "user without className defaults to User", dataSync("create", "user", data: state("alice")),
            "entityCreated user - - 1 user:alice"
        ),
        (
            "classVersion as a string",
            dataSync("create", "entity", className: "vehicle", level: "SubKey", version: "2", data: state("v1")),
            "entityCreated custom vehicle SubKey 2 entity:v1"
        ),
        (
            "classVersion as an integral double",
            dataSync("create", "entity", className: "vehicle", level: "SubKey", version: 3.0, data: state("v1")),
            "entityCreated custom vehicle SubKey 3 entity:v1"
        ),
        (
            "composite User:: is a Global User",
            dataSync("update", "entity", className: "User::", data: state("alice")),
            "entityUpdated user User Global 1 user:alice"
        ),
        (
            "composite ::Customer is a SubKey class",
            dataSync("update", "entity", className: "::Customer", data: state("e1")),
            "entityUpdated custom Customer SubKey 1 entity:e1"
        ),
        (
            "composite :X: is an Account class",
            dataSync("delete", "entity", className: ":X:", data: removal("e1")),
            "entityDeleted custom X Account 1 removed:e1"
        ),
        (
            "an explicit classLevel wins over the composite",
            dataSync("update", "entity", className: "User::", level: "SubKey", data: state("u1")),
            "entityUpdated custom User SubKey 1 entity:u1"
        ),
        (
            "a delete needs no class version", dataSync("delete", "user", version: nil, data: removal("alice")),
            "entityDeleted user - - - removed:alice"
        ),
        (
            "event and type in capitals", dataSync("UPDATE", "User", data: state("alice")),
            "entityUpdated user - - 1 user:alice"
        ),
    ]

    static let cases = everyKindAndChange + otherForms

    @Test("every kind, change and legacy form", arguments: cases)
    func decodes(name: String, payload: JSONValue, expected: String) throws {
        let event = try #require(decodeOne(payload), "\(name): not a DataSync event")
        #expect(summary(event) == expected, "\(name)")
        #expect(event.channel == "alice")
        #expect(event.timetoken == 17_905_749_563_923_636)
        #expect(event.version == "1.0")
    }

    static let malformed: [(String, JSONValue, String, String)] = [
        ("an unknown event", dataSync("archive", "user", data: state("alice")), "user", "archive"),
        ("an unknown type", dataSync("create", "widget", data: state("w1")), "widget", "widget"),
        ("no type", dataSync("create", nil, data: state("w1")), "", "metadata.type"),
        ("no event", dataSync(nil, "user", data: state("alice")), "user", "metadata.event"),
        ("type not a string", dataSync("create", 7, data: state("alice")), "", "metadata.type"),
        ("data not an object", dataSync("create", "user", data: "alice"), "user", "data"),
        ("no data", ["metadata": ["event": "create", "type": "user", "source": "data-sync"]], "user", "data"),
        (
            "create with a bad timestamp", dataSync("create", "user", data: state("alice", ["updatedAt": "yesterday"])),
            "user", "updatedAt"
        ),
        (
            "classVersion not a number", dataSync("create", "user", version: "one", data: state("alice")), "user",
            "classVersion"
        ),
        (
            "className not a string", dataSync("create", "entity", className: 5, data: state("e1")), "custom",
            "className"
        ),
        (
            "relationship without sides", dataSync("create", "relationship", className: "Enrolled", data: state("r1")),
            "custom", "entityAId"
        ),
        (
            "membership without a user", dataSync("create", "membership", data: state("m1", ["channelId": "chan-1"])),
            "membership", "entityBId"
        ),
        ("delete without id", dataSync("delete", "channel", data: ["deletedAt": .string(deleted)]), "channel", "id"),
    ]

    @Test(
        "an unknown event or type, or data that cannot be read (no id, no sides, a bad field) is unknown, data attached",
        arguments: malformed)
    func unknown(name: String, payload: JSONValue, kind: String, reason: String) throws {
        let event = try #require(decodeOne(payload), "\(name): not a DataSync event")
        guard case .unknown(let change) = event.change else {
            Issue.record("\(name): expected unknown, got \(summary(event))")
            return
        }
        #expect(event.kind.rawValue == kind, "\(name)")
        #expect(change.reason.contains(reason), "\(name): \(change.reason)")
        #expect(change.metadata == payload["metadata"], "\(name)")
        #expect(change.payload == (payload["data"] ?? .null), "\(name)")
        #expect(event.entity == nil && event.relationship == nil && event.removed == nil)
        #expect(event.objectId == nil)
    }

    @Test("an e 5 item that is not from data-sync is an ordinary message, never a DataSync event")
    func fallsThrough() {
        let payloads: [JSONValue] = [
            ["metadata": ["source": "something-else"]],
            ["metadata": ["event": "create", "type": "user"], "data": ["id": "user-1"]],
            ["metadata": "data-sync"],
            "data-sync",
            ["plain": true],
        ]
        let events = decodeEvents(payloads.map { item($0) })
        #expect(events.count == payloads.count)
        for (event, payload) in zip(events, payloads) {
            guard case .message(let message) = event else {
                Issue.record("expected a message for \(payload), got \(event)")
                continue
            }
            #expect(message.payload == payload)
        }
    }

    @Test("the envelope says which items decryption must skip")
    func decryptionSkip() throws {
        let body = Answer.subscribe(
            "2",
            [
                item(dataSync("create", "user", data: state("alice"))),
                item(["metadata": ["source": "elsewhere"]]),
                Answer.message("alice", "hello"),
            ]
        ).body
        guard case .decoded(let response) = SubscribeResponseDecoder.decode(body) else {
            Issue.record("did not decode")
            return
        }
        #expect(response.envelopes.map(\.isDataSyncEvent) == [true, false, false])
    }

    @Test("the live captures decode: an entity create, a membership update and a channel delete")
    func liveCaptures() throws {
        let create = try #require(
            decodeOne(
                dataSync(
                    "create", "entity", className: "JSCustomer", level: "SubKey",
                    data: [
                        "id": "dartcustomer.40601", "updatedAt": "2026-09-28T05:55:55.583771Z",
                        "createdAt": "2026-09-28T05:55:55.583771Z", "eTag": "3w5e111z2x3lk",
                        "expiresAt": "2027-09-29T00:00:00Z",
                        "payload": ["city": "Pune", "creditScore": 700],
                    ]), channel: "ch"))
        guard case .entity(let entity)? = create.entity?.object else {
            Issue.record("expected an entity: \(create)")
            return
        }
        #expect(entity.className == "JSCustomer")
        #expect(entity.classLevel == .subKey)
        #expect(entity.classVersion == 1)
        #expect(entity.eTag == "3w5e111z2x3lk")
        #expect(entity.payload?["creditScore"] == 700)
        #expect(entity.expiresAt == date("2027-09-29T00:00:00Z"))
        #expect(create.projection == PubNubDataSyncEvent.defaultProjection)

        let membership = try #require(
            decodeOne(
                dataSync(
                    "update", "membership", className: "Membership", level: "Global",
                    data: state("dartcap.mem40601", ["channelId": "dartcap.chan40601", "userId": "dartcap.user40601"])),
                channel: "dartcap.user40601"))
        #expect(membership.kind == .membership)
        #expect(membership.relationship?.entityAId == "dartcap.chan40601", "A is the channel")
        #expect(membership.relationship?.entityBId == "dartcap.user40601", "B is the user")
        guard case .membership(let narrowed)? = membership.relationship?.object else {
            Issue.record("expected a membership")
            return
        }
        #expect(narrowed.channelId == "dartcap.chan40601")
        #expect(narrowed.userId == "dartcap.user40601")
        #expect(narrowed.payload == ["name": "A"])

        let delete = try #require(
            decodeOne(
                dataSync("delete", "channel", className: "Channel", level: "Global", data: removal("dartcap.chan40601"))
            ))
        #expect(delete.change == .entityDeleted)
        #expect(delete.removed?.deletedAt == date(deleted))
        #expect(delete.removed?.className == "Channel")
        #expect(delete.removed?.endpoints == nil, "an entity delete has no sides")
        #expect(delete.objectId == "dartcap.chan40601")
    }

    @Test("subscription match, projection and user narrowing")
    func envelopeFields() throws {
        let events = decodeEvents([
            item(
                dataSync("update", "user", className: "User", level: "Global", data: state("alice")),
                channel: "__admin__alice", match: "__admin__alice"),
            item(dataSync("update", "user", data: state("alice")), channel: "alice", match: "users"),
        ])
        guard events.count == 2, case .dataSync(let admin) = events[0], case .dataSync(let grouped) = events[1] else {
            Issue.record("unexpected \(events)")
            return
        }
        #expect(admin.projection == "admin")
        #expect(admin.subscription == nil, "b equal to c is the channel itself")
        #expect(grouped.subscription == "users")
        guard case .user(let user)? = admin.entity?.object else {
            Issue.record("expected a user")
            return
        }
        #expect(user.id == "alice")
        #expect(user.updatedAt == date(updated))
        #expect(user.createdAt == date(created))
        #expect(admin.entity?.className == "User")
    }
}

// MARK: - Entities and projection channels

@Suite("DataSync entities: projection channel names")
struct DataSyncEntityTests {
    @Test(
        "the SDK builds the channel of a projection",
        arguments: [
            ("__default__", "course-swift-basics"), ("default", "course-swift-basics"),
            ("admin", "__admin__course-swift-basics"), ("stats2", "__stats2__course-swift-basics"),
            ("9lives", "__9lives__course-swift-basics"),
        ])
    func channelName(projection: String, expected: String) throws {
        let pubnub = makeClient(FakeService(), clock: ManualClock())
        let entity = pubnub.dataSyncEntity("course-swift-basics")
        #expect(try entity.channelName(projection: projection) == expected)
        #expect(try entity.subscription(projection: projection).channels == [expected])
    }

    @Test(
        "the static name needs no client, matches the handle's, and an event on it reads the projection back",
        arguments: [
            ("__default__", "course-swift-basics", "__default__"), ("default", "course-swift-basics", "__default__"),
            ("admin", "__admin__course-swift-basics", "admin"),
        ])
    func staticChannelName(projection: String, expected: String, readBack: String) throws {
        #expect(try DataSyncEntity.channelName(id: "course-swift-basics", projection: projection) == expected)
        #expect(try DataSyncEntity.channelName(id: "course-swift-basics") == "course-swift-basics")
        let pubnub = makeClient(FakeService(), clock: ManualClock())
        #expect(try pubnub.dataSyncEntity("course-swift-basics").channelName(projection: projection) == expected)
        let event = PubNubDataSyncEvent(
            change: .entityDeleted, kind: .user, channel: expected, timetoken: 1)
        #expect(event.projection == readBack)
        #expect(throws: PubNubError.self) { try DataSyncEntity.channelName(id: "", projection: "admin") }
        #expect(throws: PubNubError.self) { try DataSyncEntity.channelName(id: "alice", projection: "__admin__") }
    }

    @Test(
        "an empty or __-prefixed projection is a local error",
        arguments: [
            ("", PubNubError.Reason.missingRequiredParameter), ("__admin__", .invalidArguments),
            ("__admin", .invalidArguments), ("_x", .invalidArguments), ("-x", .invalidArguments),
        ])
    func badProjection(projection: String, reason: PubNubError.Reason) {
        let pubnub = makeClient(FakeService(), clock: ManualClock())
        do {
            _ = try pubnub.dataSyncEntity("alice").subscription(projection: projection)
            Issue.record("\"\(projection)\" was accepted")
        } catch {
            #expect(error.reason == reason)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("the base subscription is the bare id, with presence when asked; an empty id is an error")
    func base() {
        let pubnub = makeClient(FakeService(), clock: ManualClock())
        let alice = pubnub.dataSyncEntity("alice")
        #expect(alice.id == "alice")
        #expect(alice.subscription().channels == ["alice"])
        #expect(alice.subscription(options: ReceivePresenceEvents()).channels == ["alice", "alice-pnpres"])
        #expect(throws: PubNubError.self) { try pubnub.dataSyncEntity("").subscription(projection: "admin") }
        let set = pubnub.subscription(entities: [alice, pubnub.dataSyncEntity("chan-1")])
        #expect(set.subscriptions.flatMap(\.channels) == ["alice", "chan-1"])
    }
}

// MARK: - Bounded memory, dedupe and link sides

@Suite("DataSync events: dedupe window, link memory, gaps")
struct DataSyncMemoryTests {
    @Test("a bounded map forgets the oldest write first, and a rewrite makes a key new")
    func boundedMap() {
        var map = BoundedRecentMap<Int, String>(capacity: 3)
        for key in 1...3 { map.set("v\(key)", for: key) }
        map.set("again", for: 1)
        map.set("v4", for: 4)
        #expect(map.count == 3)
        #expect(map[2] == nil, "the oldest write goes first")
        #expect(map[1] == "again")
        #expect(map[3] == "v3" && map[4] == "v4")
        for round in 0..<1_000 { map.set("x", for: round % 2) }
        #expect(map.count == 3)
        let inserted = map.insertIfAbsent(0, value: "y")
        #expect(!inserted)
        var none = BoundedRecentMap<Int, Int>(capacity: 0)
        none.set(1, for: 1)
        #expect(none.count == 0)
    }

    @Test("a removed key is forgotten, can be written again, and leaves the capacity and order intact")
    func boundedMapRemove() {
        var map = BoundedRecentMap<Int, String>(capacity: 2)
        map.set("a", for: 1)
        map.set("b", for: 2)
        map.remove(1)
        #expect(map[1] == nil && map.count == 1 && !map.isEmpty)
        map.set("c", for: 3)
        #expect(map[2] == "b" && map[3] == "c", "a removed key does not count against the capacity")
        map.set("a again", for: 1)
        #expect(map[2] == nil, "the oldest remaining write goes first")
        #expect(map[1] == "a again" && map[3] == "c")
        for key in [1, 3] { map.remove(key) }
        #expect(map.isEmpty)
        for round in 0..<1_000 {
            map.set("x", for: round)
            map.remove(round)
        }
        #expect(map.isEmpty)
    }

    @Test("the deduplicator admits a change once per window; deletes ignore the projection; off admits all")
    func deduplicator() throws {
        let create = try #require(decodeOne(dataSync("create", "user", data: state("alice")), channel: "alice"))
        let viaLink = try #require(decodeOne(dataSync("create", "user", data: state("alice")), channel: "chan-1"))
        let projected = try #require(
            decodeOne(dataSync("create", "user", data: state("alice")), channel: "__admin__alice"))
        let later = try #require(
            decodeOne(dataSync("update", "user", data: state("alice", ["updatedAt": .string(deleted)]))))
        let delete = try #require(decodeOne(dataSync("delete", "user", data: removal("alice"))))
        let deleteProjected = try #require(
            decodeOne(dataSync("delete", "user", data: removal("alice")), channel: "__admin__alice"))
        let unknown = try #require(decodeOne(dataSync("archive", "user", data: state("alice"))))
        // A copy on another channel is dropped; another projection's view and a later write are not;
        // a delete is the same on every projection; unknown changes are never dropped.
        var dedupe = DataSyncDeduplicator()
        let admitted = [create, viaLink, projected, later, delete, deleteProjected, unknown, unknown].map {
            dedupe.admit($0)
        }
        #expect(admitted == [true, false, true, true, true, false, true, true])

        // Outside the window a copy is delivered again.
        var small = DataSyncDeduplicator(setting: PubNubDataSyncDeduplication(window: 1))
        #expect([create, later, viaLink].map { small.admit($0) } == [true, true, true])

        var off = DataSyncDeduplicator(setting: .off)
        #expect([create, viaLink].map { off.admit($0) } == [true, true])
    }

    @Test("a delete names the sides of a link seen before, and says when it was not")
    func linkMemory() throws {
        var memory = DataSyncLinkMemory(capacity: 2)
        let create = try #require(
            decodeOne(dataSync("create", "membership", data: state("m1", membershipSides))))
        let relationship = try #require(
            decodeOne(dataSync("update", "relationship", className: "Enrolled", data: state("r1", relationshipSides))))
        _ = memory.process(create)
        _ = memory.process(relationship)
        let deleteM1 = try #require(decodeOne(dataSync("delete", "membership", data: removal("m1"))))
        #expect(deleteM1.removed?.endpoints == .unknown, "the decoder alone cannot know")
        let named = memory.process(deleteM1)
        #expect(named.removed?.endpoints == .known(entityAId: "chan-1", entityBId: "alice"))
        #expect(named.removed?.entityAId == "chan-1" && named.removed?.entityBId == "alice")
        let copy = memory.process(deleteM1)
        #expect(copy.removed?.endpoints == named.removed?.endpoints, "the copy on the other side's channel too")
        let deleteR1 = try #require(decodeOne(dataSync("delete", "relationship", data: removal("r1"))))
        let namedR1 = memory.process(deleteR1)
        #expect(namedR1.removed?.entityAId == "course-1")
        let stranger = try #require(decodeOne(dataSync("delete", "relationship", data: removal("r9"))))
        let strangerNamed = memory.process(stranger)
        #expect(strangerNamed.removed?.endpoints == .unknown)
        let userDelete = try #require(decodeOne(dataSync("delete", "user", data: removal("alice"))))
        let userNamed = memory.process(userDelete)
        #expect(userNamed.removed?.endpoints == nil)
        let third = try #require(
            decodeOne(dataSync("create", "membership", data: state("m3", membershipSides))))
        _ = memory.process(third)
        #expect(memory.count == 2, "bounded")
        let forgotten = memory.process(deleteM1)
        #expect(forgotten.removed?.endpoints == .unknown, "the oldest link was forgotten")
    }

    private static func status(
        _ category: PubNubStatus.Category, _ operation: PubNubStatus.Operation = .subscribe, current: Timetoken? = nil,
        last: Timetoken? = nil, error: Bool = false, retry: Bool = false, channels: [String] = ["alice"]
    ) -> PubNubStatus {
        PubNubStatus(
            category: category, operation: operation, isError: error, willAutomaticallyRetry: retry,
            currentTimetoken: current, lastTimetoken: last, subscribedChannels: channels)
    }

    @Test("the gap detector: skipped envelopes and a reconnection that did not resume; a burst is no gap")
    func gapDetector() {
        typealias Step = (status: PubNubStatus, gap: PubNubDataSyncGap.Reason?, last: Timetoken?, resumed: Timetoken?)
        let steps: [Step] = [
            (Self.status(.connected, current: 10), nil, nil, nil),
            (Self.status(.connected, current: 10), nil, nil, nil),  // channels added while receiving
            // An app's threshold reached by a live answer: a burst, nothing missing.
            (Self.status(.requestMessageCountExceeded, current: 30, last: 20, error: true), nil, nil, nil),
            (Self.status(.malformedResponse, current: 40, last: 30, error: true), .unreadableEvents, 30, 40),
            // Interrupted, then resumed from where it stopped: no gap.
            (Self.status(.unexpectedDisconnect, current: 40, error: true, retry: true), nil, nil, nil),
            (Self.status(.malformedResponse, current: 40, error: true, retry: true), nil, nil, nil),
            (Self.status(.networkIssues, current: 40, error: true, retry: true), nil, nil, nil),
            (Self.status(.reconnected, current: 40), nil, nil, nil),
            // Interrupted, then started later (restore off): a gap from the last cursor.
            (Self.status(.unexpectedDisconnect, current: 50, error: true, retry: true), nil, nil, nil),
            (Self.status(.reconnected, current: 90), .couldNotResume, 50, 90),
            // disconnect() and reconnect(), or a denied token: the same rule.
            (Self.status(.disconnected, current: 90), nil, nil, nil),
            (Self.status(.connected, current: 90), nil, nil, nil),
            (Self.status(.accessDenied, current: 95, error: true), nil, nil, nil),
            (Self.status(.connected, current: 120), .couldNotResume, 95, 120),
            // Heartbeats never count; unsubscribing from everything forgets the cursor.
            (Self.status(.networkIssues, .heartbeat, current: 120, error: true), nil, nil, nil),
            (Self.status(.connected, current: 120), nil, nil, nil),
            (Self.status(.unexpectedDisconnect, current: 130, error: true), nil, nil, nil),
            (Self.status(.disconnected, .unsubscribe, channels: []), nil, nil, nil),
            (Self.status(.connected, current: 500), nil, nil, nil),  // a fresh start is not a gap
        ]
        var detector = DataSyncGapDetector()
        for (index, step) in steps.enumerated() {
            let gap = detector.observe(step.status)
            #expect(gap?.reason == step.gap, "step \(index): \(step.status)")
            if step.gap != nil {
                #expect(gap?.lastKnownTimetoken == step.last, "step \(index)")
                #expect(gap?.resumedAt == step.resumed, "step \(index)")
                #expect(gap?.status == step.status)
            }
        }
        // Nothing received before the first connection: nothing missed.
        var fresh = DataSyncGapDetector()
        let early = [
            Self.status(.networkIssues, error: true, retry: true), Self.status(.connected, current: 7),
        ].map { fresh.observe($0) }
        #expect(early == [nil, nil])
    }
}

// MARK: - Delivery through a client

private final class DataSyncListener: PubNubEventsListener {
    let events = Recorder<PubNubDataSyncEvent>()
    let gaps = Recorder<PubNubDataSyncGap>()
    func didReceive(dataSyncEvent: PubNubDataSyncEvent) { events.append(dataSyncEvent) }
    func didReceive(dataSyncGap: PubNubDataSyncGap) { gaps.append(dataSyncGap) }
}

@Suite("DataSync events through a client: listeners, dedupe, delete sides, gaps, streams")
struct DataSyncDeliveryTests {
    /// One membership create and its delete, each on both sides' channels, then a message on alice.
    private static let linkAnswer = Answer.subscribe(
        "200",
        [
            item(dataSync("create", "membership", data: state("m1", membershipSides)), channel: "alice", tt: "11"),
            item(dataSync("create", "membership", data: state("m1", membershipSides)), channel: "chan-1", tt: "11"),
            item(dataSync("delete", "membership", data: removal("m1")), channel: "chan-1", tt: "12"),
            item(dataSync("delete", "membership", data: removal("m1")), channel: "alice", tt: "12"),
            Answer.message("alice", "hi", tt: "13"),
        ])

    @Test("a change that came on both sides' channels reaches each listener once; a delete names the link's sides")
    func dedupeAcrossChannels() async {
        let (service, _, pubnub) = scriptedClient()
        let alice = pubnub.dataSyncEntity("alice").subscription()
        let channel = pubnub.dataSyncEntity("chan-1").subscription()
        let set = pubnub.subscription(entities: [pubnub.dataSyncEntity("alice"), pubnub.dataSyncEntity("chan-1")])
        let client = Recorder<PubNubDataSyncEvent>()
        let onAlice = Recorder<PubNubDataSyncEvent>()
        let onChannel = Recorder<PubNubDataSyncEvent>()
        let onSet = Recorder<PubNubDataSyncEvent>()
        let everything = Recorder<PubNubEvent>()
        let listener = DataSyncListener()
        pubnub.onDataSync = { client.append($0) }
        pubnub.onEvents = { batch in for event in batch { everything.append(event) } }
        pubnub.addListener(listener)
        alice.onDataSync = { onAlice.append($0) }
        channel.onDataSync = { onChannel.append($0) }
        set.onDataSync = { onSet.append($0) }
        service.push(Answer.subscribe("100"))
        service.push(Self.linkAnswer)
        alice.subscribe()
        channel.subscribe()
        set.subscribe()
        #expect(await everything.waitFor(3))
        #expect(await onSet.waitFor(2))
        for recorder in [client, onAlice, onChannel, onSet, listener.events] {
            #expect(recorder.all.map(\.change) == [.relationshipCreated, .relationshipDeleted])
        }
        #expect(everything.all.count == 3, "two DataSync changes once each and the message")
        #expect(onAlice.all.map(\.channel) == ["alice", "alice"])
        #expect(onChannel.all.map(\.channel) == ["chan-1", "chan-1"])
        for recorder in [client, onAlice, onChannel, onSet] {
            #expect(recorder.all.last?.removed?.endpoints == .known(entityAId: "chan-1", entityBId: "alice"))
        }
    }

    @Test("with dedupe off every copy arrives; a new setting applies to what comes next")
    func dedupeOff() async {
        let (service, _, pubnub) = scriptedClient()
        #expect(pubnub.dataSyncDeduplication == .default)
        pubnub.dataSyncDeduplication = .off
        #expect(pubnub.dataSyncDeduplication == .off)
        let set = pubnub.subscription(entities: [pubnub.dataSyncEntity("alice"), pubnub.dataSyncEntity("chan-1")])
        set.dataSyncDeduplication = .off
        #expect(set.subscriptions[0].dataSyncDeduplication.isEnabled)
        let client = Recorder<PubNubDataSyncEvent>()
        let onSet = Recorder<PubNubDataSyncEvent>()
        pubnub.onDataSync = { client.append($0) }
        set.onDataSync = { onSet.append($0) }
        service.push(Answer.subscribe("100"))
        service.push(Self.linkAnswer)
        set.subscribe()
        #expect(await client.waitFor(4))
        #expect(await onSet.waitFor(4))
        #expect(client.all.map(\.channel) == ["alice", "chan-1", "chan-1", "alice"])
        #expect(client.all.filter { $0.change == .relationshipDeleted }.allSatisfy { $0.removed?.entityBId == "alice" })
    }

    @Test("a DataSync entity's streams yield its events, and dataSyncUpdates the gap of a full catch-up in order")
    func streamsAndGap() async {
        let (service, _, pubnub) = scriptedClient { $0.requestMessageCountThreshold = 2 }
        let subscription = pubnub.dataSyncEntity("alice").subscription()
        let updates = subscription.dataSyncUpdates()
        let events = pubnub.dataSyncEvents()
        let clientGaps = Recorder<PubNubDataSyncGap>()
        let subscriptionGaps = Recorder<PubNubDataSyncGap>()
        let listener = DataSyncListener()
        pubnub.onDataSyncGap = { clientGaps.append($0) }
        subscription.onDataSyncGap = { subscriptionGaps.append($0) }
        pubnub.addListener(listener)
        // Catching up from a timetoken: a first answer that holds the queue may follow dropped events.
        subscription.subscribe(with: 90)
        service.push(Answer.subscribe("100"))
        service.push(
            Answer.subscribe(
                "200",
                [
                    item(dataSync("create", "user", data: state("alice")), tt: "150"),
                    item(dataSync("update", "user", data: state("alice", ["updatedAt": .string(deleted)])), tt: "160"),
                ]))
        var iterator = updates.makeAsyncIterator()
        guard case .event(let first)? = await iterator.next(), case .event(let second)? = await iterator.next(),
            case .gap(let gap)? = await iterator.next()
        else {
            Issue.record("expected two events and a gap")
            return
        }
        #expect(first.change == .entityCreated && second.change == .entityUpdated)
        #expect(gap.reason == .tooManyEvents)
        #expect(gap.status.category == .requestMessageCountExceeded)
        #expect(await clientGaps.waitFor(1))
        #expect(await subscriptionGaps.waitFor(1))
        #expect(await listener.gaps.waitFor(1))
        var eventIterator = events.makeAsyncIterator()
        #expect(await eventIterator.next()?.objectId == "alice")
        #expect(subscription.isSubscribed, "reading a stream subscribes")
    }

    /// Subscribes to alice's entity through a scripted loop that connects at 100, receives up to
    /// 200, loses the connection and, after the 2 s reconnection delay, is answered at 900; then
    /// runs `check` on what the subscription's gap listener and the client's status listener heard,
    /// while the client is still alive.
    private func reconnectAfterLoss(
        restore: Bool, _ check: (Recorder<PubNubDataSyncGap>, Recorder<PubNubStatus>) async -> Void
    ) async {
        let (service, clock, pubnub) = scriptedClient { if !restore { $0.restore = false } }
        let subscription = pubnub.dataSyncEntity("alice").subscription()
        let gaps = Recorder<PubNubDataSyncGap>()
        let statuses = Recorder<PubNubStatus>()
        subscription.onDataSyncGap = { gaps.append($0) }
        pubnub.onStatus = { statuses.append($0) }
        service.push(Answer.subscribe("100"))
        service.push(Answer.subscribe("200"))
        service.push(.failure(TransportError(code: .connectionLost, message: "offline")))
        service.push(Answer.subscribe("900"))
        subscription.subscribe()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await check(gaps, statuses)
        withExtendedLifetime((service, pubnub, subscription)) {}
    }

    @Test("a reconnection that could not resume (restore off) signals a gap to DataSync subscribers")
    func restoreOffGap() async {
        await reconnectAfterLoss(restore: false) { gaps, _ in
            #expect(await gaps.waitFor(1))
            #expect(gaps.all.first?.reason == .couldNotResume)
            #expect(gaps.all.first?.lastKnownTimetoken == 200)
            #expect(gaps.all.first?.resumedAt == 900)
        }
    }

    @Test("with restore on, a reconnection resumes and signals no gap")
    func restoreOnNoGap() async {
        await reconnectAfterLoss(restore: true) { gaps, statuses in
            #expect(await statuses.waitFor(3))
            #expect(statuses.all.map(\.category) == [.connected, .unexpectedDisconnect, .reconnected])
            #expect(gaps.all.isEmpty)
        }
    }
}
