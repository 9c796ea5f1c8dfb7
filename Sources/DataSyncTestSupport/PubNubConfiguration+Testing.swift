public import PubNubCore

extension PubNubConfiguration {
    /// A configuration for unit tests: the given transport (a mock), no real waiting, and results
    /// delivered where they finish.
    ///
    /// Retries keep the default policy's shape but wait on `clock`: an ``ImmediateClock`` unless
    /// you pass one, so a test that sees four 503s in a row finishes at once (and can read the
    /// delays from ``ImmediateClock/requestedSleeps``). Pass a ``ManualClock`` to hold the waits
    /// and drive them with `advance(by:)`, or `retryPolicy: .none` to turn retries off.
    ///
    /// ```swift
    /// let pubnub = PubNub(configuration: .testing(transport: MockHTTPClient.success(body: body)))
    /// ```
    ///
    /// - Parameters:
    ///   - transport: Where every request goes: usually a `MockHTTPClient`, a `ScriptedHTTPClient` or a
    ///     `RecordingHTTPClient`.
    ///   - clock: What retry waits sleep on; an ``ImmediateClock`` by default, so waits end at once.
    ///   - subscribeKey: The subscribe key in every request path; `test-sub-key` by default.
    ///   - userId: The `uuid` of every request; `test-user` by default.
    ///   - authToken: The token sent as `auth`; `nil` (the default) sends none.
    ///   - retryPolicy: When failed requests are resent; the SDK's default policy unless given, `.none`
    ///     to turn retries off.
    public static func testing(
        transport: any HTTPClient, clock: any Clock<Duration> = ImmediateClock(), subscribeKey: String = "test-sub-key",
        userId: String = "test-user", authToken: String? = nil,
        retryPolicy: RetryPolicy = PubNubConfiguration.defaultRetryPolicy
    ) -> PubNubConfiguration {
        PubNubConfiguration(
            publishKey: "test-pub-key", subscribeKey: subscribeKey, userId: userId, authToken: authToken,
            origin: "127.0.0.1", useSecureConnections: false, transport: transport, retryPolicy: retryPolicy,
            clock: clock)
    }
}
