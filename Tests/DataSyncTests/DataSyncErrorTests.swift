import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

struct StatusCase: Sendable, CustomTestStringConvertible {
    var status: Int
    var body: String
    var reason: PubNubError.Reason
    var errorCode: String?
    var message: String
    var testDescription: String { "HTTP \(status) \(reason)" }
}

struct MalformedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: String
    var mentions: String
    var testDescription: String { name }
}

@Suite("Errors")
struct DataSyncErrorTests {
    static let statusCases: [StatusCase] = [
        .init(
            status: 400,
            body:
                #"{"errors":[{"errorCode":"DS-0004","message":"must not be null","path":"/data/entityClassVersion"}]}"#,
            reason: .badRequest, errorCode: "DS-0004",
            message: "DS-0004: must not be null (at /data/entityClassVersion)"),
        .init(
            status: 400, body: #"{"errors":[{"errorCode":"DS-0005","message":"Unknown field: nope"}]}"#,
            reason: .badRequest, errorCode: "DS-0005", message: "DS-0005: Unknown field: nope"),
        .init(
            status: 401, body: #"{"errors":[{"errorCode":"DS-0203","message":"Unauthenticated"}]}"#,
            reason: .unauthorized, errorCode: "DS-0203", message: "DS-0203: Unauthenticated"),
        .init(
            status: 403, body: #"{"errors":[{"errorCode":"DS-0202","message":"Invalid auth"}]}"#,
            reason: .forbidden, errorCode: "DS-0202", message: "DS-0202: Invalid auth"),
        .init(
            status: 404, body: #"{"errors":[{"errorCode":"DS-0100","message":"Entity not found: u1"}]}"#,
            reason: .resourceNotFound, errorCode: "DS-0100", message: "DS-0100: Entity not found: u1"),
        .init(status: 405, body: "", reason: .methodNotAllowed, message: "the service answered HTTP 405"),
        .init(status: 406, body: "Not Acceptable", reason: .notAcceptable, message: "Not Acceptable"),
        .init(
            status: 409, body: #"{"errors":[{"errorCode":"DS-0302","message":"test operation failed"}]}"#,
            reason: .conflict, errorCode: "DS-0302", message: "DS-0302: test operation failed"),
        .init(
            status: 409, body: #"{"errors":[{"errorCode":"DS-0801","message":"cardinality"}]}"#, reason: .conflict,
            errorCode: "DS-0801", message: "DS-0801: cardinality"),
        .init(
            status: 412, body: #"{"errors":[{"errorCode":"DS-0300","message":"eTag mismatch"}]}"#,
            reason: .preconditionFailed, errorCode: "DS-0300", message: "DS-0300: eTag mismatch"),
        .init(status: 413, body: "", reason: .payloadTooLarge, message: "the service answered HTTP 413"),
        .init(status: 415, body: "", reason: .unsupportedMediaType, message: "the service answered HTTP 415"),
        .init(status: 429, body: "{}", reason: .tooManyRequests, message: "the service answered HTTP 429"),
        .init(
            status: 500, body: #"{"errors":[{"errorCode":"DS-0000","message":"Internal error"}]}"#,
            reason: .internalServiceError, errorCode: "DS-0000", message: "DS-0000: Internal error"),
        .init(status: 502, body: "<html>Bad Gateway</html>", reason: .badGateway, message: "<html>Bad Gateway</html>"),
        .init(
            status: 503, body: #"{"errors":[{"errorCode":"DS-0009","message":"Unavailable"}]}"#,
            reason: .serviceUnavailable, errorCode: "DS-0009", message: "DS-0009: Unavailable"),
        .init(status: 504, body: "  ", reason: .gatewayTimeout, message: "the service answered HTTP 504"),
        .init(status: 418, body: "teapot", reason: .unrecognizedStatusCode, message: "teapot"),
        .init(status: 302, body: "", reason: .unrecognizedStatusCode, message: "the service answered HTTP 302"),
        // Access Manager envelopes (a 403 produced in front of DataSync).
        .init(
            status: 403, body: #"{"error":true,"status":403,"service":"Access Manager","message":"Forbidden"}"#,
            reason: .forbidden, message: "Forbidden"),
        .init(
            status: 403, body: #"{"status":403,"error":{"message":"Token is expired."}}"#, reason: .forbidden,
            message: "Token is expired."),
        .init(
            status: 403, body: #"{"status":403,"message":"Token is revoked."}"#, reason: .forbidden,
            message: "Token is revoked."),
        .init(status: 400, body: #"{"errors":[]}"#, reason: .badRequest, message: "the service answered HTTP 400"),
        .init(status: 400, body: #"[1,2]"#, reason: .badRequest, message: "[1,2]"),
    ]

    @Test("maps every status and envelope", arguments: statusCases)
    func mapsStatus(_ testCase: StatusCase) async throws {
        let (pubnub, _) = Fixtures.recorded(status: testCase.status, body: testCase.body)
        let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.getUser(id: "u1") }
        #expect(error.reason == testCase.reason)
        #expect(error.statusCode == testCase.status)
        #expect(error.errorCode == testCase.errorCode)
        #expect(error.message == testCase.message)
    }

    @Test("keeps every item of a DataSync envelope, with its code and path")
    func keepsEveryDetail() async throws {
        let body = #"""
            {"errors":[
              {"errorCode":"DS-0004","message":"must not be null","path":"/data/entityClassVersion"},
              {"message":"no code here","path":"channelId"},
              {"errorCode":"SYN-0004","message":"invalid id"}
            ]}
            """#
        let (pubnub, _) = Fixtures.recorded(status: 400, body: body)
        let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.getUser(id: "u1") }
        #expect(
            error.details == [
                PubNubError.Detail(errorCode: "DS-0004", message: "must not be null", path: "/data/entityClassVersion"),
                PubNubError.Detail(errorCode: nil, message: "no code here", path: "channelId"),
                PubNubError.Detail(errorCode: "SYN-0004", message: "invalid id", path: nil),
            ])
        #expect(error.errorCode == "DS-0004")
    }

    @Test("names the Access Manager as the service that refused")
    func accessManagerService() async throws {
        let vector = try #require(DataSyncVectors.all[5])
        let (pubnub, _) = Fixtures.recorded(status: vector.responseStatus, body: vector.responseBody)
        let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.createUser(classVersion: 1) }
        #expect(error.reason == .forbidden)
        #expect(error.service == "Access Manager")
        #expect(error.details == [PubNubError.Detail(message: "Forbidden")])
    }

    @Test("shortens a long non-JSON body")
    func shortensLongBody() async throws {
        let (pubnub, _) = Fixtures.recorded(status: 500, body: String(repeating: "x", count: 5000))
        let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.getUser(id: "u1") }
        #expect(error.message.count == 201)
        #expect(error.message.hasSuffix("…"))
    }

    static let malformedCases: [MalformedCase] = [
        .init(name: "empty body", body: "", mentions: "empty"),
        .init(name: "not JSON", body: "<html>", mentions: "not JSON"),
        .init(name: "not an object", body: "[]", mentions: "array"),
        .init(name: "no data", body: #"{"status":200}"#, mentions: "data"),
        .init(name: "data is a list", body: #"{"data":[]}"#, mentions: "data"),
        .init(name: "missing id", body: #"{"data":{"entityClassVersion":1}}"#, mentions: "\"id\""),
        .init(
            name: "missing eTag",
            body:
                #"{"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}}"#,
            mentions: "\"eTag\""),
        .init(
            name: "bad timestamp",
            body:
                #"{"data":{"id":"u","entityClassVersion":1,"eTag":"e","createdAt":"yesterday","updatedAt":"2026-01-01T00:00:00Z"}}"#,
            mentions: "yesterday"),
        .init(
            name: "version is text",
            body:
                #"{"data":{"id":"u","entityClassVersion":"one","eTag":"e","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}}"#,
            mentions: "entityClassVersion"),
        .init(
            name: "status is a number",
            body:
                #"{"data":{"id":"u","entityClassVersion":1,"status":3,"eTag":"e","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}}"#,
            mentions: "status"),
    ]

    @Test("a successful status with a malformed body is a clear error", arguments: malformedCases)
    func malformedSuccess(_ testCase: MalformedCase) async throws {
        let (pubnub, _) = Fixtures.recorded(status: 200, body: testCase.body)
        let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.getUser(id: "u") }
        #expect(error.reason == .malformedResponse)
        #expect(error.statusCode == 200)
        #expect(error.message.contains(testCase.mentions), "\(error.message)")
    }

    @Test("a malformed list answer is a clear error")
    func malformedList() async throws {
        for body in [#"{"data":{}}"#, #"{"data":[1]}"#, #"{"data":[],"meta":{"has_next":"yes"}}"#, "null"] {
            let (pubnub, _) = Fixtures.recorded(status: 200, body: body)
            let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.getUsers() }
            #expect(error.reason == .malformedResponse, "\(body)")
        }
    }

    @Test("remove accepts any successful answer, with or without a body")
    func removeAcceptsAnyBody() async throws {
        for (status, body) in [(200, ""), (204, ""), (200, "{}"), (200, "not json")] {
            let (pubnub, recorder) = Fixtures.recorded(status: status, body: body)
            try await pubnub.dataSync.removeUser(id: "u1")
            #expect(recorder.requests.count == 1)
        }
    }

    static let transportCases: [(TransportError.Code, PubNubError.Reason)] = [
        (.timedOut, .requestTimedOut), (.cannotConnect, .connectionFailure), (.cannotResolveHost, .connectionFailure),
        (.connectionLost, .connectionFailure), (.tls, .connectionFailure), (.cancelled, .requestCancelled),
        (.invalidResponse, .transportFailure), (.tooLarge, .transportFailure), (.other, .transportFailure),
        (.unavailable, .invalidConfiguration),
    ]

    @Test("maps transport failures", arguments: transportCases)
    func mapsTransportFailure(_ code: TransportError.Code, _ reason: PubNubError.Reason) async throws {
        let failure = TransportError(code: code, message: "boom")
        let pubnub = Fixtures.pubnub(transport: MockHTTPClient.failure(failure))
        let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.getUser(id: "u1") }
        #expect(error.reason == reason)
        #expect(error.statusCode == nil)
        #expect((error.underlying as? TransportError) == failure)
    }

    @Test("a non-transport error thrown by a custom client is wrapped")
    func wrapsForeignErrors() async throws {
        struct Odd: Error {}
        let pubnub = Fixtures.pubnub(transport: MockHTTPClient { _ in throw Odd() })
        let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.getUser(id: "u1") }
        #expect(error.reason == .transportFailure)
        #expect(error.underlying is Odd)
    }

    @Test("a cancelled task sends nothing and reports requestCancelled")
    func cancelledBeforeSending() async throws {
        let transport = ScriptedHTTPClient([])
        let pubnub = Fixtures.pubnub(transport: transport)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pubnub.dataSync.getUser(id: "u1")
        }
        let error = try await Fixtures.pubNubError { _ = try await task.value }
        #expect(error.reason == .requestCancelled)
        #expect(transport.requestCount == 0)
    }

    @Test("error.pubNubError is nil for other errors")
    func accessorOnOtherErrors() {
        struct Other: Error {}
        let error: any Error = Other()
        #expect(error.pubNubError == nil)
        let wrapped: any Error = PubNubError(reason: .conflict, message: "x")
        #expect(wrapped.pubNubError?.reason == .conflict)
    }
}
