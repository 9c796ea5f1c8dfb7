import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("Writes: set, update, ETags")
struct WriteTests {
    @Test("set replaces the object fully: omitted status and payload are cleared")
    func setReplaces() async throws {
        let client = try TestClient()
        try await client.user("u1", payload: ["a": 1, "b": 2], extra: ["status": "active"])
        let replaced = try await client.set("users", "u1", ["entityClassVersion": 1, "payload": ["c": 3]])
        #expect(replaced.status == 200)
        #expect(replaced.contentType == "application/vnd.pubnub.objects.user+json;version=1")
        #expect(replaced.data?["payload"] == ["c": 3])
        #expect(replaced.data?["status"] == nil)
        let cleared = try await client.set("users", "u1", ["entityClassVersion": 1])
        #expect(cleared.data?["payload"] == nil)
        #expect(try await client.get("users/u1").data == cleared.data)
    }

    @Test("set keeps class fields: echoing them is fine, changing them is a 400")
    func setImmutable() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(employeeClass)
        try await client.user("u1")
        let echo = try await client.set(
            "users", "u1", ["id": "u1", "entityClass": "User", "entityClassLevel": "Global", "entityClassVersion": 1])
        #expect(echo.status == 200)
        let change = try await client.set("users", "u1", ["entityClass": "Employee", "entityClassVersion": 1])
        change.expectRefused(400, at: "/data/entityClass")
        #expect(try await client.get("users/u1").data?["entityClass"] == "User")
        let missingVersion = try await client.set("users", "u1", ["status": "x"])
        missingVersion.expectRefused(400, at: "/data/entityClassVersion")
    }

    @Test("set on a membership accepts the JS form with unchanged endpoints and refuses moved ones")
    func setMembershipEndpoints() async throws {
        let client = try TestClient()
        try await client.user("u1")
        try await client.user("u2")
        try await client.channel("c1")
        try await client.membership("m1", channel: "c1", user: "u1")
        let same = try await client.set(
            "memberships", "m1", ["relationshipClassVersion": 1, "channelId": "c1", "userId": "u1", "status": "x"])
        #expect(same.status == 200)
        let moved = try await client.set("memberships", "m1", ["relationshipClassVersion": 1, "userId": "u2"])
        moved.expectRefused(400, at: "/data/userId")
    }

    @Test("every write changes eTag and advances updatedAt, even when the clock stands still")
    func eTagsChange() async throws {
        let client = try TestClient()
        let created = try await client.user("u1")
        var seen: Set<String> = [try created.requiredETag()]
        var updatedAt = try #require(created.data?["updatedAt"]?.stringValue)
        for round in 0..<3 {
            let reply = try await client.set("users", "u1", ["entityClassVersion": 1, "status": .string("s\(round)")])
            let eTag = try reply.requiredETag()
            #expect(!seen.contains(eTag))
            seen.insert(eTag)
            let next = try #require(reply.data?["updatedAt"]?.stringValue)
            #expect(next > updatedAt)
            updatedAt = next
            #expect(reply.data?["createdAt"] == created.data?["createdAt"])
        }
    }

    @Test(
        "a stale If-Match on set, update or remove is a 412 DS-0300 and nothing changes",
        arguments: ["PUT", "PATCH", "DELETE"])
    func staleIfMatch(method: String) async throws {
        let client = try TestClient()
        let created = try await client.user("u1", payload: ["a": 1])
        let stale = try created.requiredETag()
        let current = try await client.set("users", "u1", ["entityClassVersion": 1, "payload": ["a": 2]])
        let reply: Reply
        switch method {
        case "PUT": reply = try await client.set("users", "u1", ["entityClassVersion": 1], ifMatch: stale)
        case "PATCH":
            reply = try await client.patch("users", "u1", [["op": "remove", "path": "/payload/a"]], ifMatch: stale)
        default: reply = try await client.remove("users", "u1", ifMatch: stale)
        }
        reply.expectError(412, "DS-0300")
        #expect(try await client.get("users/u1").data == current.data)
    }

    @Test("a current or * If-Match is accepted on update; update of a missing object is a 404")
    func currentIfMatchOnUpdate() async throws {
        let client = try TestClient()
        let created = try await client.user("u1")
        let patched = try await client.patch(
            "users", "u1", [["op": "add", "path": "/status", "value": "on"]], ifMatch: try created.requiredETag())
        #expect(patched.status == 200)
        #expect(patched.data?["status"] == "on")
        let any = try await client.patch("users", "u1", [["op": "remove", "path": "/status"]], ifMatch: "*")
        #expect(any.status == 200)
        #expect(any.data?["status"] == nil)
        let missing = try await client.patch("users", "nobody", [["op": "remove", "path": "/status"]])
        missing.expectError(404, "DS-0100")
    }

    @Test("a current If-Match is accepted on set and remove")
    func currentIfMatch() async throws {
        let client = try TestClient()
        let created = try await client.user("u1")
        let replaced = try await client.set(
            "users", "u1", ["entityClassVersion": 1], ifMatch: try created.requiredETag())
        #expect(replaced.status == 200)
        let quoted = try await client.remove("users", "u1", ifMatch: "\"\(try replaced.requiredETag())\"")
        #expect(quoted.status == 412)
        #expect(try await client.remove("users", "u1", ifMatch: try replaced.requiredETag()).status == 200)
    }

    @Test(
        "update refuses immutable and unknown paths with a 400",
        arguments: [
            "/entityClass", "/entityClassLevel", "/id", "/eTag", "/createdAt", "/expiresAt", "",
            "/entityClassVersion/x",
        ])
    func immutablePaths(path: String) async throws {
        let client = try TestClient()
        let created = try await client.user("u1")
        let reply = try await client.patch("users", "u1", [["op": "replace", "path": .string(path), "value": "X"]])
        reply.expectError(400, "DS-0004", at: "/0/path")
        #expect(try await client.get("users/u1").data == created.data)
    }

    @Test(
        "update refuses linked ids and the class on memberships",
        arguments: ["/channelId", "/userId", "/relationshipClass"])
    func immutableMembershipPaths(path: String) async throws {
        let client = try TestClient()
        try await client.user("u1")
        try await client.channel("c1")
        try await client.membership("m1", channel: "c1", user: "u1")
        let reply = try await client.patch(
            "memberships", "m1", [["op": "replace", "path": .string(path), "value": "u1"]])
        reply.expectRefused(400, at: "/0/path")
        let move = try await client.patch(
            "memberships", "m1", [["op": "move", "from": .string(path), "path": "/payload/x"]])
        #expect(move.status == 400)
    }

    @Test("relationship endpoints and class are immutable on set and update")
    func relationshipImmutable() async throws {
        let client = try TestClient()
        try await client.defineRelationshipClass(["name": "Follows", "versions": [["version": 1], ["version": 2]]])
        for id in ["a", "b", "c"] { try await client.user(id) }
        let created = try await client.create(
            "relationships",
            [
                "id": "r1", "entityAId": "a", "entityBId": "b", "relationshipClass": "Follows",
                "relationshipClassVersion": 1,
            ])
        try #require(created.status == 201)
        let moved = try await client.set("relationships", "r1", ["relationshipClassVersion": 1, "entityBId": "c"])
        moved.expectRefused(400, at: "/data/entityBId")
        let echoed = try await client.set(
            "relationships", "r1",
            ["relationshipClassVersion": 2, "entityAId": "a", "entityBId": "b", "relationshipClass": "Follows"])
        #expect(echoed.status == 200)
        #expect(echoed.data?["relationshipClassVersion"] == 2)
        for path in ["/entityAId", "/entityBId", "/relationshipClass"] {
            let patched = try await client.patch(
                "relationships", "r1", [["op": "replace", "path": .string(path), "value": "c"]])
            #expect(patched.status == 400, "\(path)")
        }
        let version = try await client.patch(
            "relationships", "r1", [["op": "replace", "path": "/relationshipClassVersion", "value": 1]])
        #expect(version.data?["relationshipClassVersion"] == 1)
    }

    @Test("an empty patch, a non-array or a malformed operation is a 400")
    func malformedPatch() async throws {
        let client = try TestClient()
        try await client.user("u1")
        let empty = try await client.patch("users", "u1", [])
        empty.expectError(400, "DS-0004")
        #expect(try await client.patch("users", "u1", ["op": "add"]).status == 400)
        let unknownOp = try await client.patch("users", "u1", [["op": "merge", "path": "/payload"]])
        unknownOp.expectRefused(400, at: "/0/op")
        let noValue = try await client.patch("users", "u1", [["op": "add", "path": "/payload/x"]])
        #expect(noValue.errorPath == "/0/value")
        let wrongType = try await client.send(
            "PATCH", "users/u1", body: [["op": "remove", "path": "/status"]], contentType: "application/json")
        #expect(wrongType.status == 415)
    }

    @Test("update applies a JSON Patch to the stored names atomically")
    func updateApplies() async throws {
        let client = try TestClient()
        let created = try await client.user(
            "u1", payload: ["firstName": "Alice", "lastName": "Verma", "email": "a@x", "isActive": true],
            extra: ["status": "active"])
        let reply = try await client.patch(
            "users", "u1",
            [
                ["op": "add", "path": "/payload/phone", "value": "+15550100"],
                ["op": "replace", "path": "/payload/email", "value": "b@x"],
                ["op": "remove", "path": "/payload/isActive"],
                ["op": "move", "from": "/payload/lastName", "path": "/payload/surname"],
                ["op": "copy", "from": "/payload/firstName", "path": "/payload/nickname"],
                ["op": "test", "path": "/status", "value": "active"],
                ["op": "replace", "path": "/status", "value": "away"],
            ], ifMatch: try created.requiredETag())
        #expect(reply.status == 200)
        #expect(
            reply.data?["payload"]
                == [
                    "firstName": "Alice", "surname": "Verma", "email": "b@x", "phone": "+15550100", "nickname": "Alice",
                ])
        #expect(reply.data?["status"] == "away")
        #expect(reply.eTag != created.eTag)
        #expect(reply.data?["expiresAt"] == created.data?["expiresAt"])
    }

    @Test("a patch can add payload members to an object that has no payload")
    func patchWithoutPayload() async throws {
        let client = try TestClient()
        let created = try await client.create("users", ["id": "u1", "entityClassVersion": 1])
        #expect(created.data?["payload"] == nil)
        let added = try await client.patch("users", "u1", [["op": "add", "path": "/payload/name", "value": "Ann"]])
        #expect(added.status == 200)
        #expect(added.data?["payload"] == ["name": "Ann"])
        try await client.channel("c1", payload: nil)
        let tested = try await client.patch(
            "channels", "c1",
            [["op": "add", "path": "/status", "value": "x"], ["op": "test", "path": "/payload/a", "value": nil]])
        #expect(tested.status >= 400)
        #expect(try await client.get("channels/c1").data?["payload"] == nil)
        #expect(try await client.get("channels/c1").data?["status"] == nil)
    }

    @Test("a failing test op is a 409 DS-0302 and nothing changes")
    func failingTest() async throws {
        let client = try TestClient()
        let created = try await client.user("u1", payload: ["a": 1])
        let reply = try await client.patch(
            "users", "u1",
            [["op": "replace", "path": "/payload/a", "value": 2], ["op": "test", "path": "/payload/a", "value": 1]])
        reply.expectError(409, "DS-0302")
        #expect(try await client.get("users/u1").data == created.data)
    }

    @Test("update may change the class version and checks declared types")
    func updateVersion() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        let created = try await client.create(
            "entities", ["id": "p1", "entityClass": "Product", "entityClassVersion": 1])
        try #require(created.status == 201)
        let bumped = try await client.patch(
            "entities", "p1", [["op": "replace", "path": "/entityClassVersion", "value": 2]])
        #expect(bumped.data?["entityClassVersion"] == 2)
        let unknown = try await client.patch(
            "entities", "p1", [["op": "replace", "path": "/entityClassVersion", "value": 5]])
        #expect(unknown.status == 400)
        let badType = try await client.patch(
            "entities", "p1", [["op": "add", "path": "/payload", "value": ["price": "x"]]])
        badType.expectRefused(400, at: "/payload/price")
        let notObject = try await client.patch("entities", "p1", [["op": "replace", "path": "/payload", "value": 3]])
        #expect(notObject.status == 400)
    }
}
