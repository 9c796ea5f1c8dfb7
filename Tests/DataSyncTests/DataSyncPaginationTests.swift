import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

@Suite("Pagination and the auto-pager")
struct DataSyncPaginationTests {
    private func ok(_ body: String) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: 200, body: Array(body.utf8)))
    }

    @Test("a page reports hasNext, the next cursor and the applied limit")
    func pageMeta() async throws {
        let body = #"""
            {"data":[],"meta":{"has_next":true,"next_cursor":"eyJpIjoiMzUwMSJ9","limit":20},
             "links":{"self":"/x","next":"/x?cursor=eyJpIjoiMzUwMSJ9","entityClass":"/classes/User"}}
            """#
        let (pubnub, _) = Fixtures.recorded(body: body)
        let (_, next) = try await pubnub.dataSync.getUsers()
        #expect(next == PubNubDataSyncPage(hasNext: true, cursor: "eyJpIjoiMzUwMSJ9", limit: 20))
    }

    @Test("the last page has no cursor; a missing has_next means no more pages")
    func lastPage() async throws {
        let (pubnub, _) = Fixtures.recorded(body: #"{"data":[],"meta":{"next_cursor":null,"limit":5}}"#)
        let (_, next) = try await pubnub.dataSync.getChannels()
        #expect(next == PubNubDataSyncPage(hasNext: false, cursor: nil, limit: 5))
    }

    @Test("following the cursor by hand sends it back verbatim")
    func manualPaging() async throws {
        let transport = ScriptedHTTPClient([
            ok(Fixtures.page([Fixtures.user("u1"), Fixtures.user("u2")], hasNext: true, cursor: "c/2+")),
            ok(Fixtures.page([Fixtures.user("u3")], hasNext: false)),
        ])
        let recorder = RecordingHTTPClient(transport)
        let pubnub = Fixtures.pubnub(transport: recorder)
        var ids: [String] = []
        var cursor: String?
        repeat {
            let (users, next) = try await pubnub.dataSync.getUsers(cursor: cursor, limit: 2)
            ids += users.map(\.id)
            cursor = next?.hasNext == true ? next?.cursor : nil
        } while cursor != nil
        #expect(ids == ["u1", "u2", "u3"])
        #expect(recorder.requests.map { $0.queryValue("cursor") } == [nil, "c/2+"])
        #expect(recorder.requests.last?.encodedQuery.contains("cursor=c%2F2%2B") == true)
    }

    @Test("the sequence fetches lazily, one page at a time, and stops at hasNext == false")
    func sequenceFetchesLazily() async throws {
        let transport = ScriptedHTTPClient([
            ok(Fixtures.page([Fixtures.channel("a"), Fixtures.channel("b")], hasNext: true, cursor: "p2")),
            ok(Fixtures.page([], hasNext: true, cursor: "p3")),
            ok(Fixtures.page([Fixtures.channel("c")], hasNext: false)),
        ])
        let recorder = RecordingHTTPClient(transport)
        let pubnub = Fixtures.pubnub(transport: recorder)
        let sequence = pubnub.dataSync.channels(pageSize: 2, filter: "type == 'public'")
        #expect(recorder.requests.isEmpty)
        var iterator = sequence.makeAsyncIterator()
        #expect(try await iterator.next()?.id == "a")
        #expect(recorder.requests.count == 1)
        #expect(try await iterator.next()?.id == "b")
        #expect(recorder.requests.count == 1)
        #expect(try await iterator.next()?.id == "c")
        #expect(recorder.requests.count == 3)
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil)
        #expect(recorder.requests.count == 3)
        #expect(recorder.requests.map { $0.queryValue("cursor") } == [nil, "p2", "p3"])
        #expect(recorder.requests.allSatisfy { $0.queryValue("limit") == "2" })
        #expect(recorder.requests.allSatisfy { $0.queryValue("filter") == "type == 'public'" })
    }

    @Test("every list has a sequence sending that list's request")
    func everyListHasASequence() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([]))
        for try await _ in pubnub.dataSync.users() {}
        for try await _ in pubnub.dataSync.channels() {}
        for try await _ in pubnub.dataSync.memberships(userId: "u1") {}
        for try await _ in pubnub.dataSync.entities(className: "Product") {}
        for try await _ in pubnub.dataSync.relationships(className: "Link") {}
        #expect(
            recorder.requests.map(\.path) == [
                "/v1/datasync/subkeys/mySubKey/users", "/v1/datasync/subkeys/mySubKey/channels",
                "/v1/datasync/subkeys/mySubKey/memberships", "/v1/datasync/subkeys/mySubKey/entities",
                "/v1/datasync/subkeys/mySubKey/relationships",
            ])
        #expect(recorder.requests[2].queryValue("user_id") == "u1")
        #expect(recorder.requests[3].queryValue("entity_class") == "Product")
        #expect(recorder.requests[4].queryValue("relationship_class") == "Link")
    }

    @Test("a list without meta is a single page")
    func noMetaIsOnePage() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([Fixtures.user("u1")]))
        var ids: [String] = []
        for try await user in pubnub.dataSync.users() { ids.append(user.id) }
        #expect(ids == ["u1"])
        #expect(recorder.requests.count == 1)
    }

    @Test("a page claiming more without a new cursor ends with malformedResponse after its objects")
    func stuckCursor() async throws {
        let transport = ScriptedHTTPClient([
            ok(Fixtures.page([Fixtures.user("u1")], hasNext: true, cursor: "same")),
            ok(Fixtures.page([Fixtures.user("u2")], hasNext: true, cursor: "same")),
        ])
        let pubnub = Fixtures.pubnub(transport: transport)
        var ids: [String] = []
        let error = try await Fixtures.pubNubError {
            for try await user in pubnub.dataSync.users() { ids.append(user.id) }
        }
        #expect(ids == ["u1", "u2"])
        #expect(error.reason == .malformedResponse)
        #expect(transport.requestCount == 2)
    }

    @Test("an error on a later page surfaces after the earlier objects")
    func errorOnLaterPage() async throws {
        let transport = ScriptedHTTPClient([
            ok(Fixtures.page([Fixtures.user("u1")], hasNext: true, cursor: "p2")),
            .success(HTTPResponse(status: 403, body: Array(#"{"status":403,"message":"Forbidden"}"#.utf8))),
        ])
        let pubnub = Fixtures.pubnub(transport: transport)
        var ids: [String] = []
        let error = try await Fixtures.pubNubError {
            for try await user in pubnub.dataSync.users() { ids.append(user.id) }
        }
        #expect(ids == ["u1"])
        #expect(error.reason == .forbidden)
    }

    @Test("cancelling the iterating task stops before the next request")
    func cancellationStops() async throws {
        let transport = ScriptedHTTPClient([
            ok(Fixtures.page([Fixtures.user("u1")], hasNext: true, cursor: "p2")),
            ok(Fixtures.page([Fixtures.user("u2")], hasNext: false)),
        ])
        let pubnub = Fixtures.pubnub(transport: transport)
        let task = Task { () -> ([String], PubNubError?) in
            var ids: [String] = []
            do {
                for try await user in pubnub.dataSync.users() {
                    ids.append(user.id)
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            } catch {
                return (ids, error.pubNubError)
            }
            return (ids, nil)
        }
        let (ids, error) = await task.value
        #expect(ids == ["u1"])
        #expect(error?.reason == .requestCancelled)
        #expect(transport.requestCount == 1)
    }

    @Test("the sequence can start from a cursor and page through any fetch function")
    func customFetch() async throws {
        let sequence = PubNubDataSyncObjectSequence<PubNubDataSyncUser>(startingAt: "start") { cursor in
            let user = try Fixtures.user("at-\(cursor ?? "nil")").decode(PubNubDataSyncUser.self)
            return ([user], PubNubDataSyncPage(hasNext: cursor == "start", cursor: "second"))
        }
        var ids: [String] = []
        for try await user in sequence { ids.append(user.id) }
        #expect(ids == ["at-start", "at-second"])
    }
}
