import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import Testing
import Transport

/// The seed's publish status: every failure of publish, fire and signal is a `PubNubPublishError`
/// whose status has the category, status code and error data of the Realtime status model, and
/// whose `retry()` resends the identical request.
@Suite("Publish status: categories, error data and retry()")
struct PublishStatusTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var answer: Result<HTTPResponse, TransportError>
        var category: PubNubStatus.Category
        var statusCode: Int?
        var reason: PubNubError.Reason
        var information: String
        var channels: [String] = []
        var groups: [String] = []
    }

    static func reply(_ status: Int, _ body: String, headers: HTTPHeaders = HTTPHeaders()) -> Result<
        HTTPResponse, TransportError
    > {
        .success(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)))
    }

    /// One row per category a publish can end in, through every way of getting there.
    static let cases: [Case] = [
        Case(
            description: "400 invalid key", answer: reply(400, #"[0,"Invalid Key","15635079026391944"]"#),
            category: .badRequest, statusCode: 400, reason: .invalidKey, information: "Invalid Key"),
        Case(
            description: "400 message too large",
            answer: reply(400, #"[0,"Message Too Large","15635079026391944"]"#), category: .badRequest,
            statusCode: 400, reason: .messageTooLarge, information: "Message Too Large"),
        Case(
            description: "400 invalid JSON", answer: reply(400, #"[0,"Invalid JSON","15646801805496402"]"#),
            category: .badRequest, statusCode: 400, reason: .invalidJSON, information: "Invalid JSON"),
        Case(
            description: "413 from the HTTP layer",
            answer: reply(413, #"{"message":"Content Too Large","error":true,"service":"Balancer","status":413}"#),
            category: .badRequest, statusCode: 413, reason: .messageTooLarge, information: "Content Too Large"),
        Case(
            description: "200 with an error array", answer: reply(200, #"[0,"Something odd","1"]"#),
            category: .badRequest, statusCode: 200, reason: .badRequest, information: "Something odd"),
        Case(
            description: "403 Access Manager naming the channel",
            answer: reply(
                403,
                #"{"message":"Forbidden","payload":{"channels":["c"],"channel-groups":[":g"]},"error":true,"service":"Access Manager","status":403}"#
            ), category: .accessDenied, statusCode: 403, reason: .forbidden, information: "Forbidden",
            channels: ["c"], groups: ["g"]),
        Case(
            description: "403 token expired, no provider",
            answer: reply(
                403, #"{"message":"Token is expired.","error":true,"service":"Access Manager","status":403}"#),
            category: .accessDenied, statusCode: 403, reason: .forbidden, information: "Token is expired."),
        Case(
            description: "401", answer: reply(401, #"{"message":"Unauthorized","error":true,"status":401}"#),
            category: .accessDenied, statusCode: 401, reason: .unauthorized, information: "Unauthorized"),
        Case(
            description: "414 balancer",
            answer: reply(
                414, #"{"message":"Request URI Too Long","error":true,"service":"Balancer","status":414}"#),
            category: .requestURITooLong, statusCode: 414, reason: .requestURITooLong,
            information: "Request URI Too Long"),
        Case(
            description: "481", answer: reply(481, #"{"message":"Invalid filter","error":true,"status":481}"#),
            category: .malformedFilterExpression, statusCode: 481, reason: .unrecognizedStatusCode,
            information: "Invalid filter"),
        Case(
            description: "429", answer: reply(429, #"{"message":"Too many requests.","error":true,"status":429}"#),
            category: .networkIssues, statusCode: 429, reason: .tooManyRequests, information: "Too many requests."),
        Case(
            description: "500", answer: reply(500, #"{"message":"Internal Server Error","error":true,"status":500}"#),
            category: .networkIssues, statusCode: 500, reason: .internalServiceError,
            information: "Internal Server Error"),
        Case(
            description: "503 not JSON", answer: reply(503, "Service Unavailable"), category: .networkIssues,
            statusCode: 503, reason: .serviceUnavailable, information: "Service Unavailable"),
        Case(
            description: "200 not JSON", answer: reply(200, "<html>"), category: .malformedResponse,
            statusCode: 200, reason: .malformedResponse,
            information: "the service's answer is malformed: a publish answer is not a JSON array"),
        Case(
            description: "200 without a timetoken", answer: reply(200, #"[1,"Sent"]"#),
            category: .malformedResponse, statusCode: 200, reason: .malformedResponse,
            information: "the service's answer is malformed: a publish answer carries no timetoken in its third element"
        ),
        Case(
            description: "timed out", answer: .failure(TransportError(code: .timedOut, message: "slow")),
            category: .timeout, reason: .requestTimedOut, information: "the request failed (requestTimedOut)"),
        Case(
            description: "TLS", answer: .failure(TransportError(code: .tls, message: "handshake")),
            category: .tlsConnectionFailed, reason: .connectionFailure,
            information: "the request failed (connectionFailure)"),
        Case(
            description: "connection refused", answer: .failure(TransportError(code: .cannotConnect, message: "no")),
            category: .networkIssues, reason: .connectionFailure, information: "the request failed (connectionFailure)"
        ),
        Case(
            description: "connection lost", answer: .failure(TransportError(code: .connectionLost, message: "gone")),
            category: .networkIssues, reason: .connectionFailure, information: "the request failed (connectionFailure)"
        ),
        Case(
            description: "unresolvable host",
            answer: .failure(TransportError(code: .cannotResolveHost, message: "dns")), category: .networkIssues,
            reason: .connectionFailure, information: "the request failed (connectionFailure)"),
        Case(
            description: "other transport failure", answer: .failure(TransportError(code: .other, message: "odd")),
            category: .networkIssues, reason: .transportFailure, information: "the request failed (transportFailure)"),
        Case(
            description: "transport cancelled", answer: .failure(TransportError(code: .cancelled, message: "stop")),
            category: .cancelled, reason: .requestCancelled, information: "the request failed (requestCancelled)"),
    ]

    static func client(_ transport: any HTTPClient, token: String? = MessagingFixtures.token) -> PubNub {
        PubNub(
            configuration: PubNubConfiguration(
                publishKey: MessagingFixtures.publishKey, subscribeKey: MessagingFixtures.subscribeKey,
                userId: MessagingFixtures.userId, authToken: token, transport: transport, retryPolicy: .none))
    }

    /// Runs `call` and returns the `PubNubPublishError` it throws.
    /// The error `call` throws; when it succeeds, records that and throws.
    static func requireFailure(
        _ call: () async throws(PubNubPublishError) -> Timetoken, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> PubNubPublishError {
        try #require(await failure(call, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
    }

    static func failure(
        _ call: () async throws(PubNubPublishError) -> Timetoken, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> PubNubPublishError? {
        do {
            let timetoken = try await call()
            Issue.record("expected a failure, got \(timetoken)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: cases)
    func everyFailureHasItsCategory(_ row: Case) async throws {
        let pubnub = Self.client(ScriptedHTTPClient([row.answer]))
        let error = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.publish(channel: "c", message: ["text": "hi"])
        }
        #expect(error.category == row.category)
        #expect(error.operation == .publish)
        #expect(error.isError)
        #expect(error.statusCode == row.statusCode)
        #expect(error.reason == row.reason)
        #expect(error.error.statusCode == row.statusCode)
        #expect(error.errorData?.information == row.information)
        #expect(error.errorData?.channels == row.channels)
        #expect(error.errorData?.channelGroups == row.groups)
        #expect(error.wasSent)
        #expect(!error.status.willAutomaticallyRetry)
        // The status is the one Realtime uses, with the same fields.
        #expect(
            error.status
                == PubNubStatus(
                    category: row.category, operation: .publish, isError: true, statusCode: row.statusCode,
                    errorData: PubNubStatus.ErrorData(
                        channels: row.channels, channelGroups: row.groups, information: row.information)))
        // Nothing that describes the failure carries the token.
        for text in ["\(error)", "\(error.status)", error.errorData?.information ?? ""] {
            #expect(!text.contains(MessagingFixtures.token))
        }
    }

    @Test func fireAndSignalReportTheirOwnOperation() async throws {
        let denied = Self.reply(
            403, #"{"message":"Forbidden","payload":{"channels":["c"]},"error":true,"service":"Access Manager"}"#)
        let pubnub = Self.client(ScriptedHTTPClient([denied, denied, denied, denied]))
        let fire = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.fire(channel: "c", message: 1)
        }
        let signal = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.signal(channel: "c", message: 1)
        }
        let fireBuilder = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.fire().channel("c").message(1).perform()
        }
        let signalBuilder = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.signal().channel("c").message(1).perform()
        }
        #expect([fire, signal, fireBuilder, signalBuilder].map(\.operation) == [.fire, .signal, .fire, .signal])
        #expect([fire, signal, fireBuilder, signalBuilder].allSatisfy { $0.category == .accessDenied })
        #expect(fire.errorData?.channels == ["c"])
    }

    @Test func failuresBeforeSendingAreBadRequestsThatNothingCanRetry() async throws {
        let recorder = RecordingHTTPClient(MockHTTPClient.success(body: Array(MessagingFixtures.sent.utf8)))
        let pubnub = Self.client(recorder)
        var settings = PubNub.MessagingConfiguration()
        settings.signalSizeLimit = 4
        pubnub.set(messagingConfiguration: settings)
        let calls: [(PubNubError.Reason, @Sendable () async throws(PubNubPublishError) -> Timetoken)] = [
            (
                .missingRequiredParameter,
                { () async throws(PubNubPublishError) in try await pubnub.publish(channel: "", message: 1) }
            ),
            (
                .invalidArguments,
                { () async throws(PubNubPublishError) in
                    try await pubnub.publish(channel: "c", message: 1, storeTTL: -1)
                }
            ),
            (
                .invalidArguments,
                { () async throws(PubNubPublishError) in
                    try await pubnub.publish(channel: "c", message: 1, customMessageType: "x")
                }
            ),
            (
                .messageTooLarge,
                { () async throws(PubNubPublishError) in
                    try await pubnub.publish(channel: "c", message: String(repeating: "x", count: 40_000))
                }
            ),
            (
                .signalTooLarge,
                { () async throws(PubNubPublishError) in try await pubnub.signal(channel: "c", message: "too long") }
            ),
            (
                .missingRequiredParameter,
                { () async throws(PubNubPublishError) in try await pubnub.publish().channel("c").perform() }
            ),
        ]
        for (reason, call) in calls {
            let error = try #require(await Self.failure(call))
            #expect(error.reason == reason)
            #expect(error.category == .badRequest)
            #expect(error.statusCode == nil)
            #expect(!error.wasSent)
            #expect(error.errorData?.information == error.error.message)
            // retry() has no request to send: the same error, at once.
            let again = try await Self.requireFailure { () async throws(PubNubPublishError) in try await error.retry() }
            #expect(again.reason == reason)
            #expect(again.status == error.status)
        }
        #expect(recorder.requests.isEmpty)
    }

    @Test func noPublishKeyIsABadRequestBeforeSending() async throws {
        let recorder = RecordingHTTPClient(MockHTTPClient.success(body: Array(MessagingFixtures.sent.utf8)))
        let pubnub = MessagingFixtures.pubnub(transport: recorder, publishKey: nil)
        let error = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.publish(channel: "c", message: 1)
        }
        #expect(error.reason == .invalidConfiguration)
        #expect(error.category == .badRequest)
        #expect(!error.wasSent)
        #expect(recorder.requests.isEmpty)
    }

    @Test func aFailingTokenProviderIsAccessDenied() async throws {
        struct Down: Error {}
        let recorder = RecordingHTTPClient(MockHTTPClient.success(body: Array(MessagingFixtures.sent.utf8)))
        var configuration = PubNubConfiguration(
            publishKey: "p", subscribeKey: "s", userId: "u", transport: recorder, retryPolicy: .none)
        configuration.tokenProvider = ClosureTokenProvider { _ in throw Down() }
        let pubnub = PubNub(configuration: configuration)
        let error = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.publish(channel: "c", message: 1)
        }
        #expect(error.category == .accessDenied)
        #expect(error.statusCode == nil)
        #expect(error.error.underlying is AuthError)
        #expect(recorder.requests.isEmpty)
    }

    @Test func aCancelledPublishIsCancelled() async throws {
        let held = MockHTTPClient { _ in
            await suspendUntilCancelled()
            try Task.checkCancellation()
            return HTTPResponse(status: 200, body: Array(MessagingFixtures.sent.utf8))
        }
        let pubnub = Self.client(held)
        let task = Task { () async -> PubNubPublishError? in
            await Self.failure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "c", message: 1)
            }
        }
        task.cancel()
        let error = try #require(await task.value)
        #expect(error.category == .cancelled)
        #expect(error.reason == .requestCancelled)
    }

    @Test func pubNubErrorFindsTheErrorInsideThroughAnyError() async throws {
        let pubnub = Self.client(ScriptedHTTPClient([Self.reply(400, #"[0,"Invalid Key","1"]"#)]))
        do {
            try await pubnub.publish(channel: "c", message: 1)
            Issue.record("expected a failure")
        } catch {
            let erased: any Error = error
            #expect(erased.pubNubError?.reason == .invalidKey)
            #expect(erased.pubNubError?.statusCode == 400)
            #expect(erased is PubNubPublishError)
        }
    }

    // MARK: retry()

    @Test func retryResendsTheIdenticalRequestAndReturnsTheTimetoken() async throws {
        let recorder = RecordingHTTPClient(
            ScriptedHTTPClient([
                .failure(TransportError(code: .connectionLost, message: "reset")),
                Self.reply(200, MessagingFixtures.sent),
            ]))
        let pubnub = Self.client(recorder)
        let error = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.publish(
                channel: "room 1", message: ["text": "hi"], customMessageType: "chat-text", shouldStore: true,
                storeTTL: 4, meta: ["from": "me"])
        }
        #expect(error.category == .networkIssues)
        let timetoken = try await error.retry()
        #expect(timetoken == 14_647_523_059_145_592)
        let requests = recorder.requests
        #expect(requests.count == 2)
        #expect(requests.first == requests.last)
    }

    @Test func aRetryOfAnEncryptedMessageResendsTheSameCiphertext() async throws {
        let recorder = RecordingHTTPClient(
            ScriptedHTTPClient([
                Self.reply(503, "busy"), Self.reply(503, "still busy"), Self.reply(200, MessagingFixtures.sent),
            ]))
        let pubnub = Self.client(recorder)
        pubnub.set(
            messagingConfiguration: PubNub.MessagingConfiguration(
                cryptoModule: try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma")))
        let first = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.publish(channel: "c", message: ["secret": true], shouldCompress: true)
        }
        #expect(first.statusCode == 503)
        // A retry that fails can be retried in turn; every attempt is the same request.
        let second = try #require(await Self.failure { () async throws(PubNubPublishError) in try await first.retry() })
        #expect(second.statusCode == 503)
        #expect(second.errorData?.information == "still busy")
        #expect(try await second.retry() == 14_647_523_059_145_592)
        let requests = recorder.requests
        #expect(requests.count == 3)
        #expect(Set(requests).count == 1)
        #expect(requests[0].method == .post)
        #expect(requests[0].body?.prefix(2) == [0x1F, 0x8B])
    }

    @Test func aRetryCarriesTheTokenOfTheMomentAndNothingElseChanges() async throws {
        let recorder = RecordingHTTPClient(
            ScriptedHTTPClient([
                Self.reply(
                    403, #"{"message":"Forbidden","payload":{"channels":["c"]},"error":true,"status":403}"#),
                Self.reply(200, MessagingFixtures.sent),
            ]))
        let pubnub = Self.client(recorder, token: "old-token")
        let denied = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.publish(channel: "c", message: 1)
        }
        #expect(denied.category == .accessDenied)
        pubnub.set(token: "new-token")
        #expect(try await denied.retry() == 14_647_523_059_145_592)
        let requests = recorder.requests
        #expect(requests.map { $0.queryValue("auth") } == ["old-token", "new-token"])
        var first = requests[0]
        var second = requests[1]
        first.queryItems.removeAll { $0.name == "auth" }
        second.queryItems.removeAll { $0.name == "auth" }
        #expect(first == second)
        // No `seqn`, as in PubNub's Swift, JavaScript and Python SDKs (protocol §2.4).
        #expect(requests.allSatisfy { $0.queryValue("seqn") == nil })
    }

    @Test func aRetryKeepsThePerRequestSettings() async throws {
        let recorder = RecordingHTTPClient(
            ScriptedHTTPClient([Self.reply(500, "boom"), Self.reply(200, MessagingFixtures.sent)]))
        let pubnub = Self.client(recorder)
        let custom = PubNub.RequestConfiguration(queryParameters: [HTTPQueryItem(name: "trace", value: "t-1")])
        let error = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.signal(channel: "c", message: 1, custom: custom)
        }
        #expect(error.operation == .signal)
        try await error.retry()
        #expect(recorder.requests.map { $0.queryValue("trace") } == ["t-1", "t-1"])
        #expect(recorder.requests.allSatisfy { $0.path.hasPrefix("/signal/") })
    }

    @Test func theBuildersFailWithTheStatusAndRetry() async throws {
        let recorder = RecordingHTTPClient(
            ScriptedHTTPClient([
                .failure(TransportError(code: .timedOut, message: "slow")), Self.reply(200, MessagingFixtures.sent),
            ]))
        let pubnub = Self.client(recorder)
        let error = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.publish().channel("my_channel").message("Hello").shouldStore(true).ttl(16).perform()
        }
        #expect(error.category == .timeout)
        #expect(try await error.retry() == 14_647_523_059_145_592)
        #expect(recorder.requests[0] == recorder.requests[1])
    }

    @Test func theCompletionFormsHandOverTheStatusAndRetryInTheConfiguredContext() async throws {
        let recorder = RecordingHTTPClient(
            ScriptedHTTPClient([
                Self.reply(400, #"[0,"Invalid Key","1"]"#), Self.reply(200, MessagingFixtures.sent),
            ]))
        let delivered = Counter()
        var configuration = PubNubConfiguration(
            publishKey: "p", subscribeKey: "s", userId: "u", transport: recorder, retryPolicy: .none)
        configuration.completionContext = PubNub.CompletionContext { work in
            delivered.increment()
            work()
        }
        let pubnub = PubNub(configuration: configuration)
        let retried = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Timetoken, PubNubPublishError>, Never>) in
            pubnub.publish().channel("c").message(1).perform { result in
                guard case .failure(let failure) = result else {
                    continuation.resume(returning: result)
                    return
                }
                #expect(failure.category == .badRequest)
                #expect(failure.reason == .invalidKey)
                failure.retry { continuation.resume(returning: $0) }
            }
        }
        #expect(try retried.get() == 14_647_523_059_145_592)
        #expect(delivered.value == 2)
        #expect(recorder.requests.count == 2)
    }

    @Test func aLocalFailureRetriedWithACompletionFailsInTheContextToo() async throws {
        let pubnub = Self.client(MockHTTPClient.success(body: Array(MessagingFixtures.sent.utf8)))
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Timetoken, PubNubPublishError>, Never>) in
            pubnub.signal(channel: "", message: 1) { first in
                guard case .failure(let failure) = first else { return continuation.resume(returning: first) }
                failure.retry { continuation.resume(returning: $0) }
            }
        }
        guard case .failure(let failure) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.reason == .missingRequiredParameter)
        #expect(failure.operation == .signal)
    }

    @Test func anOptedInRetryPolicyStillAppliesToEachAttempt() async throws {
        let recorder = RecordingHTTPClient(
            ScriptedHTTPClient([Self.reply(503, "a"), Self.reply(503, "b"), Self.reply(200, MessagingFixtures.sent)]))
        var configuration = PubNubConfiguration(
            publishKey: "p", subscribeKey: "s", userId: "u", transport: recorder, retryPolicy: .none)
        configuration.clock = ImmediateClock()
        let pubnub = PubNub(configuration: configuration)
        let custom = PubNub.RequestConfiguration(
            retryPolicy: .exponential(minimumDelay: .seconds(1), maximumDelay: .seconds(1), maximumRetries: 1))
        let error = try await Self.requireFailure { () async throws(PubNubPublishError) in
            try await pubnub.publish(channel: "c", message: 1, custom: custom)
        }
        #expect(error.errorData?.information == "b")
        #expect(recorder.requests.count == 2)
        #expect(try await error.retry() == 14_647_523_059_145_592)
        #expect(recorder.requests.count == 3)
    }
}

/// A count shared with `@Sendable` closures.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func increment() { lock.withLock { count += 1 } }
}
