import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

@Suite("Models")
struct DataSyncModelTests {
    struct Profile: JSONCodable, Equatable {
        var firstName: String
        var age: Int?
    }

    @Test(
        "timestamps with milli-, micro- and no fractions decode",
        arguments: [
            ("2026-09-07T07:34:55.265874Z", 1_788_766_495.265_874), ("2026-09-07T07:34:55.265Z", 1_788_766_495.265),
            ("2026-09-07T07:34:55Z", 1_788_766_495.0), ("2026-09-07T09:34:55.5+02:00", 1_788_766_495.5),
        ])
    func timestamps(_ text: String, _ seconds: Double) throws {
        let user = try Fixtures.object([
            "id": "u", "entityClassVersion": 1, "createdAt": .string(text), "updatedAt": .string(text),
        ]).decode(PubNubDataSyncUser.self)
        #expect(abs(user.createdAt.timeIntervalSince1970 - seconds) < 1e-6)
        #expect(user.className == "User")
    }

    @Test("an unknown class level is kept")
    func unknownClassLevel() throws {
        let entity = try Fixtures.object([
            "id": "e", "entityClass": "X", "entityClassVersion": 1, "entityClassLevel": "Galaxy",
        ]).decode(PubNubDataSyncEntity.self)
        #expect(entity.classLevel == PubNubDataSyncClassLevel(rawValue: "Galaxy"))
        #expect(entity.classLevel != .subKey)
        #expect(PubNubDataSyncClassLevel.global.rawValue == "Global")
        #expect(PubNubDataSyncClassLevel.subKey.rawValue == "SubKey")
    }

    @Test("payload decodes as the caller's type")
    func typedPayload() throws {
        let user = try Fixtures.object([
            "id": "u", "entityClassVersion": 1, "payload": ["firstName": "Ada", "age": 36],
        ]).decode(PubNubDataSyncUser.self)
        #expect(try user.payload?.decode(Profile.self) == Profile(firstName: "Ada", age: 36))
        #expect(try user.payload(as: Profile.self) == Profile(firstName: "Ada", age: 36))
        let bare = try Fixtures.object(["id": "u", "entityClassVersion": 1, "payload": nil]).decode(
            PubNubDataSyncUser.self)
        #expect(bare.payload == nil)
        #expect(try bare.payload(as: Profile.self) == nil)
        #expect(throws: JSONError.self) { try user.payload(as: [String].self) }
    }

    @Test("a Codable payload struct is sent as its JSON")
    func codablePayloadIsSent() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.user("u")))
        _ = try await pubnub.dataSync.createUser(classVersion: 1, payload: Profile(firstName: "Ada", age: nil))
        let body = try JSONValue(parsing: try #require(recorder.lastRequest?.body))
        #expect(body == ["data": ["entityClassVersion": 1, "payload": ["firstName": "Ada"]]])
    }

    @Test("a payload that cannot be encoded fails locally with invalidArguments")
    func unencodablePayload() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.user("u")))
        let error = try await Fixtures.pubNubError {
            _ = try await pubnub.dataSync.createUser(classVersion: 1, payload: ["x": Double.nan])
        }
        #expect(error.reason == .invalidArguments)
        #expect(recorder.requests.isEmpty)
    }

    @Test("a patch value that cannot be encoded fails locally with invalidArguments")
    func unencodablePatch() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.user("u")))
        let error = try await Fixtures.pubNubError {
            _ = try await pubnub.dataSync.updateUser(
                id: "u", operations: [.replace(path: "/payload/x", value: .double(.infinity))])
        }
        #expect(error.reason == .invalidArguments)
        #expect(recorder.requests.isEmpty)
    }

    @Test("every model round-trips through Codable in the wire form")
    func codableRoundTrip() throws {
        let user = try Fixtures.user("u").decode(PubNubDataSyncUser.self)
        let channel = try Fixtures.channel("c").decode(PubNubDataSyncChannel.self)
        let entity = try Fixtures.entity("e").decode(PubNubDataSyncEntity.self)
        let membership = try Fixtures.membership("m").decode(PubNubDataSyncMembership.self)
        let relationship = try Fixtures.relationship("r").decode(PubNubDataSyncRelationship.self)
        #expect(try JSONValue(from: user).decode(PubNubDataSyncUser.self) == user)
        #expect(try JSONValue(from: channel).decode(PubNubDataSyncChannel.self) == channel)
        #expect(try JSONValue(from: entity).decode(PubNubDataSyncEntity.self) == entity)
        #expect(try JSONValue(from: membership).decode(PubNubDataSyncMembership.self) == membership)
        #expect(try JSONValue(from: relationship).decode(PubNubDataSyncRelationship.self) == relationship)
        #expect(try JSONValue(from: user)["entityClass"] == "User")
        #expect(try JSONValue(from: membership)["relationshipClassVersion"] == 1)
        let data = try JSONEncoder().encode(relationship)
        #expect(try JSONDecoder().decode(PubNubDataSyncRelationship.self, from: data) == relationship)
    }

    @Test("a malformed model reports a DecodingError through Codable")
    func codableMalformed() {
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(PubNubDataSyncUser.self, from: Data(#"{"id":"u"}"#.utf8))
        }
    }

    @Test(
        "sort fields join as name,price:desc",
        arguments: [
            ([PubNub.DataSyncSortField](), nil),
            ([.init(property: "name")], "name"),
            ([.init(property: "name"), .init(property: "price", ascending: false)], "name,price:desc"),
            ([.init(property: "createdAt", ascending: false)], "createdAt:desc"),
        ] as [([PubNub.DataSyncSortField], String?)])
    func sortFields(_ fields: [PubNub.DataSyncSortField], _ expected: String?) {
        #expect(PubNubDataSyncSortField.queryValue(for: fields) == expected)
        #expect(PubNub.DataSyncSortField(property: "x").ascending)
    }

    @Test("the page decodes the wire meta")
    func pageCodable() throws {
        let page = try JSONValue(parsing: #"{"has_next":true,"next_cursor":"c","limit":7}"#).decode(
            PubNubDataSyncPage.self)
        #expect(page == PubNubDataSyncPage(hasNext: true, cursor: "c", limit: 7))
        #expect(try JSONValue(from: page) == ["has_next": true, "next_cursor": "c", "limit": 7])
    }

    @Test("PubNubError describes itself with reason, status and code")
    func errorDescription() {
        let error = PubNubError(
            reason: .preconditionFailed, message: "stale", statusCode: 412,
            details: [.init(errorCode: "DS-0300", message: "stale", path: nil)])
        #expect(error.errorCode == "DS-0300")
        #expect(error.description == "PubNubError(preconditionFailed, HTTP 412, DS-0300): stale")
    }
}
