// Only `import DataSync` (plus the test tools): the guide's snippets must compile with it alone.
import DataSync
import DataSyncTestSupport
import Testing
import Transport

/// The eTag retry loop of Documentation/DataSyncGuide.md, run against a scripted service.
@Suite("Guide examples")
struct DataSyncGuideTests {
    private func rename(_ pubnub: PubNub, _ id: String, to name: String) async throws -> PubNubDataSyncChannel {
        while true {
            let current = try await pubnub.dataSync.getChannel(id: id)
            var payload = current.payload ?? [:]
            payload["name"] = .string(name)
            do {
                return try await pubnub.dataSync.setChannel(
                    id: id, classVersion: current.classVersion, status: current.status, payload: payload,
                    ifMatchesEtag: current.eTag)
            } catch let error where error.pubNubError?.reason == .preconditionFailed {
                continue
            }
        }
    }

    private func answer(_ status: Int, _ body: String) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: status, body: Array(body.utf8)))
    }

    @Test("the guide's snippets compile with import DataSync alone")
    func snippetsCompile() async throws {
        struct Profile: JSONCodable {
            var firstName: String
            var email: String
        }
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.user("user-1")))
        let dataSync = pubnub.dataSync
        let alice = try await dataSync.createUser(
            classVersion: 1, id: "user-1", status: "active",
            payload: Profile(firstName: "Alice", email: "alice@acme.test"))
        let profile: Profile? = try? alice.payload(as: Profile.self)
        #expect(profile == nil)  // the canned answer has no payload
        let patched = try await dataSync.updateUser(
            id: "user-1",
            operations: [.replace(path: "/payload/email", value: "a@acme.test"), .remove(path: "/payload/nickname")])
        #expect(patched.classLevel == .global)
        let sort: [PubNub.DataSyncSortField] = [.init(property: "createdAt", ascending: false)]
        #expect(PubNubDataSyncSortField.queryValue(for: sort) == "createdAt:desc")
        #expect(recorder.requests.count == 2)
    }

    @Test("a stale eTag is refetched and the write retried with the fresh one")
    func eTagRetryLoop() async throws {
        let stale = Fixtures.object([
            "id": "general", "entityClass": "Channel", "entityClassVersion": 1, "eTag": "v1", "payload": ["a": 1],
        ])
        let fresh = Fixtures.object([
            "id": "general", "entityClass": "Channel", "entityClassVersion": 1, "eTag": "v2", "payload": ["a": 2],
        ])
        let done = Fixtures.object([
            "id": "general", "entityClass": "Channel", "entityClassVersion": 1, "eTag": "v3",
            "payload": ["a": 2, "name": "News"],
        ])
        let recorder = RecordingHTTPClient(
            ScriptedHTTPClient([
                answer(200, Fixtures.envelope(stale)),
                answer(412, #"{"errors":[{"errorCode":"DS-0300","message":"eTag mismatch"}]}"#),
                answer(200, Fixtures.envelope(fresh)),
                answer(200, Fixtures.envelope(done)),
            ]))
        let pubnub = Fixtures.pubnub(transport: recorder)
        let channel = try await rename(pubnub, "general", to: "News")
        #expect(channel.eTag == "v3")
        #expect(recorder.requests.map(\.method) == [.get, .put, .get, .put])
        #expect(recorder.requests.map { $0.headers["If-Match"] } == [nil, "v1", nil, "v2"])
        let lastBody = try JSONValue(parsing: try #require(recorder.lastRequest?.body))
        #expect(lastBody == ["data": ["entityClassVersion": 1, "payload": ["a": 2, "name": "News"]]])
    }
}
