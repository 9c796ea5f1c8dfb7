import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("Wire format: paths, methods, media types, envelopes")
struct WireTests {
    @Test("create answers 201 with the full object in {\"data\":…} and the vendor media type")
    func createUser() async throws {
        let client = try TestClient()
        let reply = try await client.create(
            "users",
            [
                "id": "user-90786", "entityClassVersion": 1, "status": "active",
                "payload": ["firstName": "Amelia", "isActive": true],
            ])
        #expect(reply.status == 201)
        #expect(reply.contentType == "application/vnd.pubnub.objects.user+json;version=1")
        let data = try #require(reply.data)
        #expect(data["id"] == "user-90786")
        #expect(data["createdAt"] == "2026-09-07T07:34:55.265625Z")
        #expect(data["updatedAt"] == "2026-09-07T07:34:55.265625Z")
        #expect(data["expiresAt"] == "2026-10-08T00:00:00Z")
        #expect(data["entityClass"] == "User")
        #expect(data["entityClassVersion"] == 1)
        #expect(data["entityClassLevel"] == "Global")
        #expect(data["status"] == "active")
        #expect(data["payload"] == ["firstName": "Amelia", "isActive": true])
        #expect(data["eTag"]?.stringValue?.isEmpty == false)
        #expect(data.objectValue?.count == 10)
    }

    @Test("get answers 200 with the stored object")
    func getUser() async throws {
        let client = try TestClient()
        let created = try await client.user("user-99961")
        let reply = try await client.get("users/user-99961")
        #expect(reply.status == 200)
        #expect(reply.contentType == "application/vnd.pubnub.objects.user+json;version=1")
        #expect(reply.data == created.data)
    }

    @Test("a missing object is a 404 DS-0100 in the errors envelope")
    func notFound() async throws {
        let client = try TestClient()
        let reply = try await client.get("users/user-90051")
        #expect(reply.status == 404)
        #expect(reply.contentType == "application/json")
        #expect(reply.json == ["errors": [["errorCode": "DS-0100", "message": "Entity not found: user-90051"]]])
        let membership = try await client.get("memberships/m-1")
        #expect(membership.status == 404)
        #expect(membership.errorMessage == "Relationship 'm-1' not found")
    }

    @Test("remove answers 200 with an empty body and the object is gone")
    func removeUser() async throws {
        let client = try TestClient()
        try await client.user("user-1")
        let reply = try await client.remove("users", "user-1")
        #expect(reply.status == 200)
        #expect(reply.body.isEmpty)
        #expect(try await client.get("users/user-1").status == 404)
    }

    struct Operation: Sendable, CustomStringConvertible {
        var collection: String
        var description: String { collection }
    }

    @Test(
        "every collection answers create 201, get/getAll/set/remove 200 on its path and media type",
        arguments: ["users", "channels", "entities", "memberships", "relationships"])
    func fiveOperationsPerCollection(collection: String) async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        try await client.defineRelationshipClass(["name": "Likes", "versions": [["version": 1]]])
        try await client.user("u1")
        try await client.channel("c1")
        let data: JSONValue
        let listQuery: String
        switch collection {
        case "users", "channels":
            data = ["id": "x1", "entityClassVersion": 1]
            listQuery = ""
        case "entities":
            data = ["id": "x1", "entityClass": "Product", "entityClassVersion": 1]
            listQuery = "?entity_class=Product"
        case "memberships":
            data = ["id": "x1", "channelId": "c1", "userId": "u1", "relationshipClassVersion": 1]
            listQuery = ""
        default:
            data = [
                "id": "x1", "entityAId": "u1", "entityBId": "c1", "relationshipClass": "Likes",
                "relationshipClassVersion": 1,
            ]
            listQuery = "?relationship_class=Likes"
        }
        let mediaType = TestClient.mediaType(TestClient.resource(collection))
        let created = try await client.create(collection, data)
        #expect(created.status == 201)
        #expect(created.contentType == mediaType)
        let read = try await client.get("\(collection)/x1")
        #expect(read.status == 200)
        #expect(read.data == created.data)
        let listed = try await client.get(collection + listQuery)
        #expect(listed.status == 200)
        #expect(listed.ids.contains("x1"))
        let versionField =
            collection == "memberships" || collection == "relationships"
            ? "relationshipClassVersion" : "entityClassVersion"
        let replaced = try await client.set(collection, "x1", [versionField: 1, "status": "s"])
        #expect(replaced.status == 200)
        #expect(replaced.data?["status"] == "s")
        let removed = try await client.remove(collection, "x1")
        #expect(removed.status == 200)
        #expect(removed.body.isEmpty)
        #expect(try await client.get("\(collection)/x1").status == 404)
    }

    @Test("a body that misses the class version is a 400 DS-0004 naming the field")
    func validationEnvelope() async throws {
        let client = try TestClient()
        let reply = try await client.create("users", ["id": "u1"])
        #expect(reply.status == 400)
        #expect(
            reply.json
                == [
                    "errors": [
                        [
                            "errorCode": "DS-0004", "message": "'entityClassVersion' is required",
                            "path": "/data/entityClassVersion",
                        ]
                    ]
                ])
    }

    @Test(
        "a wrong or missing Content-Type is a 415",
        arguments: [nil, "application/json", "application/vnd.pubnub.objects.channel+json;version=1"])
    func wrongMediaType(contentType: String?) async throws {
        let client = try TestClient()
        let reply = try await client.send(
            "POST", "users", body: ["data": ["entityClassVersion": 1]], contentType: contentType)
        reply.expectError(415, "DS-0004", at: "Content-Type")
    }

    @Test("the media type check ignores case and spacing around parameters")
    func mediaTypeSpacing() async throws {
        let client = try TestClient()
        let reply = try await client.send(
            "POST", "users", body: ["data": ["entityClassVersion": 1]],
            contentType: "Application/Vnd.PubNub.Objects.User+JSON; version=1")
        #expect(reply.status == 201)
    }

    @Test("malformed JSON is a 400 DS-0002")
    func malformedJSON() async throws {
        let client = try TestClient()
        let reply = try await client.sendRaw(
            "POST", client.path("users"), body: Array("{\"data\":".utf8), contentType: TestClient.mediaType("user"))
        reply.expectError(400, "DS-0002")
    }

    @Test("unknown fields in data are refused with their path")
    func unknownField() async throws {
        let client = try TestClient()
        let reply = try await client.create("users", ["entityClassVersion": 1, "classVersion": 1])
        reply.expectError(400, "DS-0004", at: "/data/classVersion")
    }

    @Test("an unknown path is a 404 and a wrong method a 405")
    func routing() async throws {
        let client = try TestClient()
        let unknown = try await client.sendRaw("GET", "/v1/datasync/subkeys/sub-a/widgets")
        unknown.expectError(404, "DS-0100")
        let outside = try await client.sendRaw("GET", "/v2/objects/sub-a/uuids")
        #expect(outside.status == 404)
        let method = try await client.send("PUT", "users")
        method.expectError(405, "DS-0001")
        let post = try await client.send(
            "POST", "users/u1", body: ["data": [:]], contentType: TestClient.mediaType("user"))
        #expect(post.status == 405)
    }

    @Test(
        "a read by id: an encoded slash stays in one path segment; common query parameters and any credential are accepted",
        arguments: [
            ("a/b c", "users/a%2Fb%20c"),
            ("u1", "users/u1?uuid=myUUID&auth=anything&pnsdk=PubNub-Swift%2F1.0&requestid=r1"),
        ])
    func readById(id: String, target: String) async throws {
        let client = try TestClient()
        try await client.user(id)
        let reply = try await client.get(target)
        #expect(reply.status == 200)
        #expect(reply.data?["id"] == .string(id))
    }
}
