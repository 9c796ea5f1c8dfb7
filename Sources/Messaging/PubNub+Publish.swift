public import JSONCore
public import PubNubCore
import Transport

extension PubNub {
    // MARK: async

    /// Publishes a message to a channel and returns the timetoken the service gave it.
    ///
    /// One method for every publish variant of the seed API; a configured crypto module encrypts
    /// the message. **Not retried automatically** (a resend after a lost answer could deliver it
    /// twice): use ``PubNubPublishError/retry()`` or opt in with `custom:`. GET or POST,
    /// compression, ordering and retrying: Documentation/Messaging.md.
    ///
    /// - Parameters:
    ///   - channel: The channel to publish to; not a wildcard.
    ///   - message: Any `JSONCodable` value: a `JSONValue` literal, a string, your own `Codable` struct.
    ///   - customMessageType: A label subscribers receive with the message: 3 to 50 characters of
    ///     `A-Z a-z 0-9 _ -`, not starting with `-`, `_`, `pn-` or `pn_`.
    ///   - shouldStore: Whether Message Persistence keeps the message; `nil` uses the keyset's default.
    ///   - storeTTL: Hours it is kept; `0` for the keyset's retention; `nil` for the keyset's default.
    ///   - meta: Metadata subscribers' filter expressions can test (sent as JSON text, not encrypted).
    ///   - payloads: Mobile push sections merged into the message (see ``PubNubPushPayload``).
    ///   - shouldCompress: Sends the message gzip-compressed in a POST body.
    ///   - requestConfig: Per-request overrides.
    /// - Throws: ``PubNubPublishError``. Before sending (category `.badRequest`): reason
    ///   `.invalidConfiguration` without a publish key, `.missingRequiredParameter` for an empty
    ///   channel, `.invalidArguments` for a value that cannot be encoded or encrypted, a bad
    ///   `customMessageType` or a negative `storeTTL`, `.messageTooLarge` over
    ///   ``MessagingConfiguration/messageSizeLimit``. The service's reasons: Messaging.md, "Errors".
    ///
    /// ```swift
    /// let timetoken = try await pubnub.publish(channel: "room-1", message: ["text": "hello"])
    /// ```
    @discardableResult
    public func publish(
        channel: String, message: any JSONCodable, customMessageType: String? = nil, shouldStore: Bool? = nil,
        storeTTL: Int? = nil, meta: (any JSONCodable)? = nil, payloads: PubNubPushPayload? = nil,
        shouldCompress: Bool = false,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws(PubNubPublishError) -> Timetoken {
        try await send(
            PublishOptions(
                kind: .publish, channel: channel, message: message, payloads: payloads,
                customMessageType: customMessageType, shouldStore: shouldStore, storeTTL: storeTTL, meta: meta,
                shouldCompress: shouldCompress),
            custom: requestConfig)
    }

    /// Fires a message: a publish that is neither stored nor replicated, delivered only to the
    /// Functions (event handlers) of the channel, never to subscribers (`store=0&norep=true`).
    ///
    /// Encrypted like a publish when a crypto module is set; not retried automatically.
    ///
    /// - Returns: The message's timetoken.
    /// - Throws: ``PubNubPublishError`` as ``publish(channel:message:customMessageType:shouldStore:storeTTL:meta:payloads:shouldCompress:custom:)``.
    @discardableResult
    public func fire(
        channel: String, message: any JSONCodable, meta: (any JSONCodable)? = nil,
        payloads: PubNubPushPayload? = nil, shouldCompress: Bool = false,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws(PubNubPublishError) -> Timetoken {
        try await send(
            PublishOptions(
                kind: .fire, channel: channel, message: message, payloads: payloads, meta: meta,
                shouldCompress: shouldCompress),
            custom: requestConfig)
    }

    /// Sends a signal: a small, unstored message (`GET /signal/…`) delivered to subscribers as a
    /// signal event.
    ///
    /// Signals are never encrypted, even with a crypto module set, as in PubNub's JavaScript and
    /// Kotlin SDKs (PubNub's Swift SDK encrypts them; the subscriber side must then not expect
    /// ciphertext). Not retried automatically.
    ///
    /// - Returns: The signal's timetoken.
    /// - Throws: ``PubNubPublishError`` whose reason is `.signalTooLarge` when the message's JSON
    ///   text is longer than ``MessagingConfiguration/signalSizeLimit`` (64 bytes by default;
    ///   nothing is sent) or when the service says so; otherwise as for publish.
    ///
    /// ```swift
    /// try await pubnub.signal(channel: "room-1", message: ["typing": true])
    /// ```
    @discardableResult
    public func signal(
        channel: String, message: any JSONCodable, customMessageType: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws(PubNubPublishError) -> Timetoken {
        try await send(
            PublishOptions(kind: .signal, channel: channel, message: message, customMessageType: customMessageType),
            custom: requestConfig)
    }

    // MARK: completion

    /// Publishes a message; see the `async` form. `completion` runs in the configured context with
    /// the timetoken or the ``PubNubPublishError`` (status, error, `retry`).
    public func publish(
        channel: String, message: any JSONCodable, customMessageType: String? = nil, shouldStore: Bool? = nil,
        storeTTL: Int? = nil, meta: (any JSONCodable)? = nil, payloads: PubNubPushPayload? = nil,
        shouldCompress: Bool = false,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Timetoken, PubNubPublishError>) -> Void)?
    ) {
        PublishCompletion.run(completion, context: configuration.completionContext) {
            () async throws(PubNubPublishError) -> Timetoken in
            try await self.publish(
                channel: channel, message: message, customMessageType: customMessageType, shouldStore: shouldStore,
                storeTTL: storeTTL, meta: meta, payloads: payloads, shouldCompress: shouldCompress,
                custom: requestConfig)
        }
    }

    /// Fires a message; see the `async` form. `completion` runs in the configured context.
    public func fire(
        channel: String, message: any JSONCodable, meta: (any JSONCodable)? = nil,
        payloads: PubNubPushPayload? = nil, shouldCompress: Bool = false,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Timetoken, PubNubPublishError>) -> Void)?
    ) {
        PublishCompletion.run(completion, context: configuration.completionContext) {
            () async throws(PubNubPublishError) -> Timetoken in
            try await self.fire(
                channel: channel, message: message, meta: meta, payloads: payloads, shouldCompress: shouldCompress,
                custom: requestConfig)
        }
    }

    /// Sends a signal; see the `async` form. `completion` runs in the configured context.
    public func signal(
        channel: String, message: any JSONCodable, customMessageType: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Timetoken, PubNubPublishError>) -> Void)?
    ) {
        PublishCompletion.run(completion, context: configuration.completionContext) {
            () async throws(PubNubPublishError) -> Timetoken in
            try await self.signal(
                channel: channel, message: message, customMessageType: customMessageType, custom: requestConfig)
        }
    }

    // MARK: shared

    /// Builds, checks and sends one publish-family request; what every form above ends in.
    package func send(
        _ options: PublishOptions, custom requestConfig: PubNub.RequestConfiguration
    ) async throws(PubNubPublishError) -> Timetoken {
        try await attempt(options, custom: requestConfig).run()
    }

    /// The request for `options`, built, checked and stamped once, so that a retry sends it
    /// unchanged.
    ///
    /// - Throws: ``PubNubPublishError`` without a request to resend, for what is refused before
    ///   sending.
    package func attempt(
        _ options: PublishOptions, custom requestConfig: PubNub.RequestConfiguration
    ) throws(PubNubPublishError) -> PublishAttempt {
        var custom = requestConfig
        // A resent publish may be delivered twice: retry only when the caller asks.
        if custom.retryPolicy == nil { custom.retryPolicy = RetryPolicy.none }
        let pipeline = self.pipeline
        let request = custom
        // The messaging override wins; otherwise the client's configured module encrypts.
        var settings = messagingConfiguration
        if settings.cryptoModule == nil { settings.cryptoModule = configuration.cryptoModule }
        let operation = options.kind.operation
        do {
            // The GET form is stamped once to measure its length; when it is the one chosen, that
            // request is sent as it is rather than stamped a second time.
            var measured: (call: ServicePipeline.Call, request: HTTPRequest)?
            let call = try MessagingCall.publish(
                options, publishKey: configuration.publishKey, subscribeKey: configuration.subscribeKey,
                settings: settings
            ) { call throws(PubNubError) in
                let stamped = try pipeline.request(call, custom: request)
                measured = (call, stamped)
                return stamped.target.utf8.count
            }
            let stamped: HTTPRequest
            if let measured, measured.call == call {
                stamped = measured.request
            } else {
                stamped = try pipeline.request(call, custom: custom)
            }
            return PublishAttempt(pipeline: pipeline, request: stamped, custom: custom, operation: operation)
        } catch {
            throw PubNubPublishError(
                error: error, status: .failure(error, operation: operation), attempt: nil,
                context: configuration.completionContext)
        }
    }
}

extension PublishOptions.Kind {
    /// The status operation of this kind of call.
    var operation: PubNubStatus.Operation {
        switch self {
        case .publish: return .publish
        case .fire: return .fire
        case .signal: return .signal
        }
    }
}
