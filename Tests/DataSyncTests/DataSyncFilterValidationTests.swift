import Auth
import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

@Suite("Opt-in local filter validation and token wiring")
struct DataSyncFilterValidationTests {
    private func client(validating: Bool, recorder: RecordingHTTPClient) -> PubNub {
        let configuration = PubNubConfiguration(
            publishKey: nil, subscribeKey: "mySubKey", userId: "myUUID", transport: recorder,
            validatesFiltersLocally: validating)
        return PubNub(configuration: configuration)
    }

    private func recorder() -> RecordingHTTPClient {
        RecordingHTTPClient(MockHTTPClient.success(body: Array(Fixtures.page([]).utf8)))
    }

    @Test(
        "with validation on, a bad filter or sort fails locally and sends nothing",
        arguments: [
            (nil, "price <", [PubNub.DataSyncSortField](), "filter"),
            ("name LIKE 5", nil, [], "filterFast"),
            ("a == 1", "b == 2", [], "filter"),
            (
                "a == 1 && b == 2 && c == 3 && d == 4 && e == 5 && f == 6 && g == 7 && h == 8 && i == 9 && j == 10"
                    + " && k == 11",
                nil, [], "filterFast"
            ),
            (nil, nil, [.init(property: "")], "sort"),
        ] as [(String?, String?, [PubNub.DataSyncSortField], String)])
    func rejects(_ filterFast: String?, _ filter: String?, _ sort: [PubNub.DataSyncSortField], _ parameter: String)
        async throws
    {
        let recorder = recorder()
        let pubnub = client(validating: true, recorder: recorder)
        let error = try await Fixtures.pubNubError {
            _ = try await pubnub.dataSync.getUsers(filterFast: filterFast, filter: filter, sort: sort)
        }
        #expect(error.reason == .invalidFilterExpression)
        #expect(error.details.contains { $0.path == parameter }, "\(error.details)")
        #expect(recorder.requests.isEmpty)
    }

    @Test("with validation on, valid expressions are sent as written")
    func acceptsValid() async throws {
        let recorder = recorder()
        let pubnub = client(validating: true, recorder: recorder)
        _ = try await pubnub.dataSync.getEntities(
            className: "Product", filter: #"(price < 100 && stock > 0) || name LIKE "*boot*""#,
            sort: [.init(property: "price", ascending: false)])
        _ = try await pubnub.dataSync.getMemberships(filterFast: "status == 'active'")
        #expect(recorder.requests.count == 2)
        #expect(recorder.requests.first?.queryValue("filter") == #"(price < 100 && stock > 0) || name LIKE "*boot*""#)
    }

    @Test("with validation off (the default), the same bad filter reaches the server")
    func offByDefault() async throws {
        let recorder = recorder()
        let pubnub = client(validating: false, recorder: recorder)
        _ = try await pubnub.dataSync.getUsers(filter: "price <")
        #expect(PubNubConfiguration(publishKey: nil, subscribeKey: "s", userId: "u").validatesFiltersLocally == false)
        #expect(recorder.requests.count == 1)
    }

    @Test("a token provider is asked when no token is set")
    func tokenProviderWired() async throws {
        let recorder = RecordingHTTPClient(
            MockHTTPClient.success(body: Array(Fixtures.envelope(Fixtures.user("u1")).utf8)))
        let configuration = PubNubConfiguration(
            publishKey: nil, subscribeKey: "mySubKey", userId: "myUUID", transport: recorder,
            tokenProvider: ClosureTokenProvider { _ in "from-provider" })
        let pubnub = PubNub(configuration: configuration)
        _ = try await pubnub.dataSync.getUser(id: "u1")
        #expect(recorder.lastRequest?.queryValue("auth") == "from-provider")
    }
}
