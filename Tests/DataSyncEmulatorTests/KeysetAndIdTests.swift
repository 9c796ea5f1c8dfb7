import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("Keysets and ids")
struct KeysetAndIdTests {
    @Test("each subscribe key is its own keyset: nothing is visible across keysets")
    func keysetIsolation() async throws {
        let a = try TestClient()
        let b = TestClient(emulator: a.emulator, subscribeKey: "sub-b")
        try await a.user("shared-id")
        #expect(try await b.get("users/shared-id").status == 404)
        #expect(try await b.get("users").ids == [])
        try await b.defineEntityClass(productClass)
        let inA = try await a.create("entities", ["entityClass": "Product", "entityClassVersion": 1])
        inA.expectError(404, "DS-0100")
        let sameId = try await b.user("shared-id", payload: ["name": "b"])
        #expect(sameId.data?["payload"] == ["name": "b"])
        #expect(try await a.get("users/shared-id").data?["payload"] == ["name": "x"])
    }

    @Test("an id chosen by the client is kept; without one the server assigns a UUID")
    func ids() async throws {
        let client = try TestClient()
        let chosen = try await client.create("users", ["id": "alice", "entityClassVersion": 1])
        #expect(chosen.data?["id"] == "alice")
        let generated = try await client.create("users", ["entityClassVersion": 1])
        let id = try #require(generated.data?["id"]?.stringValue)
        #expect(UUID(uuidString: id) != nil)
        #expect(try await client.get("users/\(id)").status == 200)
    }

    @Test("an id is at most 255 characters and not empty", arguments: [(255, 201), (256, 400), (0, 400)])
    func idLength(length: Int, status: Int) async throws {
        let client = try TestClient()
        let reply = try await client.create(
            "users", ["id": .string(String(repeating: "é", count: length)), "entityClassVersion": 1])
        #expect(reply.status == status)
        if status == 400 {
            #expect(reply.errorCode == "DS-0004")
            #expect(reply.errorPath == "/data/id")
        }
    }

    @Test("status is at most 100 characters", arguments: [(100, 201), (101, 400)])
    func statusLength(length: Int, status: Int) async throws {
        let client = try TestClient()
        let reply = try await client.create(
            "users", ["entityClassVersion": 1, "status": .string(String(repeating: "s", count: length))])
        #expect(reply.status == status)
        if status == 400 {
            #expect(reply.errorCode == "DS-0004")
            #expect(reply.errorPath == "/data/status")
        }
        let replaced = try await client.create("channels", ["entityClassVersion": 1, "status": 5])
        replaced.expectRefused(400, at: "/data/status")
    }

    @Test("payload must be an object")
    func payloadObject() async throws {
        let client = try TestClient()
        let reply = try await client.create("users", ["entityClassVersion": 1, "payload": [1, 2]])
        reply.expectRefused(400, at: "/data/payload")
    }
}
