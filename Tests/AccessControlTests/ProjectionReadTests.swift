import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

@Suite struct ProjectionReadTests {
    static let classes = ClassFixtures.courseClasses

    func setUp() async throws -> AccessClient {
        let client = try AccessClient()
        try await client.emulator.defineClasses(Self.classes, subscribeKey: AccessClient.subscribeKey)
        for id in ["c1", "c2"] {
            let body =
                #"{"data":{"id":"\#(id)","entityClass":"Course","entityClassVersion":1,"status":"open","payload":{"title":"T","score":3,"secret":"s"}}}"#
            let created = await client.sendSigned(
                "POST", "/v1/datasync/subkeys/sub-c/entities", body: Array(body.utf8),
                headers: [(name: "Content-Type", value: AccessClient.contentType("POST", "entities"))])
            #expect(created.status == 201, "\(created.text)")
        }
        return client
    }

    func token(_ client: AccessClient, projections: JSONValue) async throws -> String {
        try await client.grant([
            "patterns": ["datasync:entities": ["^c[0-9]$": 32]], "meta": ["pn-projections": projections],
        ])
    }

    @Test func aGetUnderANamedProjectionKeepsOnlyItsFields() async throws {
        let client = try await setUp()
        let token = try await token(client, projections: ["res": ["datasync:entities:c1": "stats"]])
        let reply = await client.dataSync("GET", "entities/c1", auth: token)
        #expect(reply.status == 200)
        #expect(reply.json?["data"]?["payload"] == ["score": 3])
        #expect(reply.json?["data"]?["status"] == "open")
        #expect(reply.json?["data"]?["eTag"] != nil)
        let admin = try await self.token(client, projections: ["pat": ["datasync:entities:^c.*$": "admin"]])
        let other = await client.dataSync("GET", "entities/c2", auth: admin)
        #expect(other.json?["data"]?["payload"] == ["title": "T", "secret": "s"])
        #expect(other.json?["data"]?["status"] == nil)
    }

    @Test func aListAppliesTheProjectionPerObject() async throws {
        let client = try await setUp()
        let token = try await token(client, projections: ["res": ["datasync:entities:c2": "stats"]])
        let reply = await client.dataSync("GET", "entities?entity_class=Course", auth: token)
        let rows = reply.json?["data"]?.arrayValue ?? []
        #expect(rows.count == 2)
        #expect(rows.first { $0["id"] == "c1" }?["payload"] == ["title": "T", "score": 3, "secret": "s"])
        #expect(rows.first { $0["id"] == "c2" }?["payload"] == ["score": 3])
    }

    @Test func anUnknownProjectionIs403DS0202() async throws {
        let client = try await setUp()
        let token = try await token(client, projections: ["res": ["datasync:entities:c1": "__admin__"]])
        let reply = await client.dataSync("GET", "entities/c1", auth: token)
        #expect(reply.status == 403)
        #expect(reply.json?["errors"]?[0]?["errorCode"] == "DS-0202")
        #expect(await client.dataSync("GET", "entities?entity_class=Course", auth: token).status == 403)
        #expect(await client.dataSync("GET", "entities/c2", auth: token).status == 200)
    }

    @Test func aSignedReadSeesTheWholeObject() async throws {
        let client = try await setUp()
        let signed = await client.sendSigned("GET", "/v1/datasync/subkeys/sub-c/entities/c1")
        #expect(signed.json?["data"]?["payload"] == ["title": "T", "score": 3, "secret": "s"])
    }
}
