public import JSONCore
public import PubNubCore

extension PubNub {
    /// Starts a publish in the builder style of the seed API; nothing is sent until `perform`.
    ///
    /// ```swift
    /// let timetoken = try await pubnub.publish()
    ///     .channel("my_channel").message("Hello from PubNub!")
    ///     .shouldStore(true).ttl(16)
    ///     .perform()
    /// ```
    public func publish() -> PubNubPublishBuilder {
        PubNubPublishBuilder(pubnub: self, kind: .publish)
    }

    /// Starts a fire (a publish only Functions receive, neither stored nor replicated) in the
    /// builder style; nothing is sent until `perform`.
    public func fire() -> PubNubFireBuilder {
        PubNubFireBuilder(builder: PubNubPublishBuilder(pubnub: self, kind: .fire))
    }

    /// Starts a signal in the builder style; nothing is sent until `perform`.
    public func signal() -> PubNubSignalBuilder {
        PubNubSignalBuilder(builder: PubNubPublishBuilder(pubnub: self, kind: .signal))
    }
}

/// A publish being described: every method returns a changed copy, and ``perform()`` sends it.
///
/// A value type: keep one and call ``perform()`` again to publish the same arguments again (a new
/// request: an encrypted message is encrypted anew). To resend the identical request of a failed
/// publish, use the failure's ``PubNubPublishError/retry()``, the seed's `[status retry]`
/// (publishes are not retried automatically; see `Documentation/Messaging.md`). Either a message
/// or push payloads must be given.
public struct PubNubPublishBuilder: Sendable {
    private let pubnub: PubNub
    private var options: PublishOptions
    private var requestConfig = PubNub.RequestConfiguration()

    init(pubnub: PubNub, kind: PublishOptions.Kind) {
        self.pubnub = pubnub
        options = PublishOptions(kind: kind, channel: "", message: nil)
    }

    /// The message: any `JSONCodable` value.
    public func message(_ message: any JSONCodable) -> PubNubPublishBuilder {
        with { $0.options.message = message }
    }

    /// The channel to publish to (required).
    public func channel(_ channel: String) -> PubNubPublishBuilder {
        with { $0.options.channel = channel }
    }

    /// Whether Message Persistence keeps the message; the keyset's default when not called.
    public func shouldStore(_ shouldStore: Bool) -> PubNubPublishBuilder {
        with { $0.options.shouldStore = shouldStore }
    }

    /// Sends the message gzip-compressed in a POST body.
    public func compress(_ compress: Bool) -> PubNubPublishBuilder {
        with { $0.options.shouldCompress = compress }
    }

    /// How many hours Message Persistence keeps the message.
    public func ttl(_ hours: Int) -> PubNubPublishBuilder {
        with { $0.options.storeTTL = hours }
    }

    /// Mobile push sections merged into the message; enough on their own without a message.
    public func payloads(_ payloads: PubNubPushPayload) -> PubNubPublishBuilder {
        with { $0.options.payloads = payloads }
    }

    /// Metadata subscribers' filter expressions can test.
    public func metadata(_ metadata: any JSONCodable) -> PubNubPublishBuilder {
        with { $0.options.meta = metadata }
    }

    /// The custom message type subscribers receive with the message.
    public func customMessageType(_ type: String) -> PubNubPublishBuilder {
        with { $0.options.customMessageType = type }
    }

    /// Per-request overrides (timeout, retry policy, extra query parameters, …).
    public func custom(_ requestConfig: PubNub.RequestConfiguration) -> PubNubPublishBuilder {
        with { $0.requestConfig = requestConfig }
    }

    /// Sends the publish and returns its timetoken.
    ///
    /// - Throws: ``PubNubPublishError`` as `PubNub.publish(channel:message:…)`; its reason is
    ///   `.missingRequiredParameter` without a channel, or without both a message and payloads.
    @discardableResult
    public func perform() async throws(PubNubPublishError) -> Timetoken {
        try await pubnub.send(options, custom: requestConfig)
    }

    /// Sends the publish; `completion` runs in the configured context with the timetoken or the
    /// ``PubNubPublishError`` (the seed's status, with `retry`).
    public func perform(completion: (@Sendable (Result<Timetoken, PubNubPublishError>) -> Void)?) {
        let builder = self
        PublishCompletion.run(completion, context: pubnub.configuration.completionContext) {
            () async throws(PubNubPublishError) -> Timetoken in
            try await builder.perform()
        }
    }

    private func with(_ change: (inout PubNubPublishBuilder) -> Void) -> PubNubPublishBuilder {
        var copy = self
        change(&copy)
        return copy
    }
}

/// A fire being described: like ``PubNubPublishBuilder`` without storage options (a fire is
/// never stored).
public struct PubNubFireBuilder: Sendable {
    fileprivate var builder: PubNubPublishBuilder

    /// The message: any `JSONCodable` value.
    public func message(_ message: any JSONCodable) -> PubNubFireBuilder {
        PubNubFireBuilder(builder: builder.message(message))
    }

    /// The channel whose Functions receive the message (required).
    public func channel(_ channel: String) -> PubNubFireBuilder {
        PubNubFireBuilder(builder: builder.channel(channel))
    }

    /// Sends the message gzip-compressed in a POST body.
    public func compress(_ compress: Bool) -> PubNubFireBuilder {
        PubNubFireBuilder(builder: builder.compress(compress))
    }

    /// Mobile push sections merged into the message.
    public func payloads(_ payloads: PubNubPushPayload) -> PubNubFireBuilder {
        PubNubFireBuilder(builder: builder.payloads(payloads))
    }

    /// Metadata sent with the message.
    public func metadata(_ metadata: any JSONCodable) -> PubNubFireBuilder {
        PubNubFireBuilder(builder: builder.metadata(metadata))
    }

    /// Per-request overrides.
    public func custom(_ requestConfig: PubNub.RequestConfiguration) -> PubNubFireBuilder {
        PubNubFireBuilder(builder: builder.custom(requestConfig))
    }

    /// Sends the fire and returns its timetoken.
    ///
    /// - Throws: ``PubNubPublishError`` as `PubNub.fire(channel:message:…)`.
    @discardableResult
    public func perform() async throws(PubNubPublishError) -> Timetoken {
        try await builder.perform()
    }

    /// Sends the fire; `completion` runs in the configured context.
    public func perform(completion: (@Sendable (Result<Timetoken, PubNubPublishError>) -> Void)?) {
        builder.perform(completion: completion)
    }
}

/// A signal being described: a message and a channel.
public struct PubNubSignalBuilder: Sendable {
    fileprivate var builder: PubNubPublishBuilder

    /// The signal's payload (its JSON text must fit the signal size limit, 64 bytes by default).
    public func message(_ message: any JSONCodable) -> PubNubSignalBuilder {
        PubNubSignalBuilder(builder: builder.message(message))
    }

    /// The channel to signal (required).
    public func channel(_ channel: String) -> PubNubSignalBuilder {
        PubNubSignalBuilder(builder: builder.channel(channel))
    }

    /// The custom message type subscribers receive with the signal.
    public func customMessageType(_ type: String) -> PubNubSignalBuilder {
        PubNubSignalBuilder(builder: builder.customMessageType(type))
    }

    /// Per-request overrides.
    public func custom(_ requestConfig: PubNub.RequestConfiguration) -> PubNubSignalBuilder {
        PubNubSignalBuilder(builder: builder.custom(requestConfig))
    }

    /// Sends the signal and returns its timetoken.
    ///
    /// - Throws: ``PubNubPublishError`` as `PubNub.signal(channel:message:…)`.
    @discardableResult
    public func perform() async throws(PubNubPublishError) -> Timetoken {
        try await builder.perform()
    }

    /// Sends the signal; `completion` runs in the configured context.
    public func perform(completion: (@Sendable (Result<Timetoken, PubNubPublishError>) -> Void)?) {
        builder.perform(completion: completion)
    }
}
