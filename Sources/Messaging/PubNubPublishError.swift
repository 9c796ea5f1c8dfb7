package import PubNubBase
public import PubNubCore
package import Transport

/// A publish, fire or signal that failed: the seed API's publish status when `isError` is true.
///
/// It gives the seed's status (``status``, with ``category``, ``statusCode`` and ``errorData``),
/// the `PubNubError` behind it (``error``; `error.pubNubError` on any `Error` returns it too) and
/// ``retry()``, the seed's `[status retry]`. Every publish-family call throws it (typed throws:
/// inside a closure write `do throws(PubNubPublishError) { … }`) and every completion form hands
/// it over as the `Result`'s failure.
///
/// ```swift
/// do {
///     let timetoken = try await pubnub.publish(channel: "room-1", message: ["text": "hi"])
///     print("sent at \(timetoken)")
/// } catch {
///     print(error.category, error.statusCode ?? 0, error.errorData?.information ?? "")
///     if error.category == .networkIssues || error.category == .timeout {
///         let timetoken = try await error.retry()   // the identical request, sent again
///     }
/// }
/// ```
///
/// ``retry()`` sends the identical request again (same method, path, query and body; only `auth`
/// is taken anew from the client's token). After a 4xx the service did not take the message, so
/// a retry delivers it once; after a lost answer, a 5xx or an unreadable 2xx it may deliver it
/// twice. A failure found before anything was sent fails again at once. What is resent and when
/// a retry duplicates: Documentation/Messaging.md, "Publish errors and retrying".
public struct PubNubPublishError: Error, Sendable, CustomStringConvertible {
    /// The seed's status: category, operation (`.publish`, `.fire` or `.signal`), `isError`
    /// (always true), status code and error data.
    public let status: PubNubStatus
    /// The error behind the status: its reason (`.messageTooLarge`, `.forbidden`, …), message,
    /// status code, the service's details and the underlying transport error.
    public let error: PubNubError
    /// The request as it was sent, kept for ``retry()``; nil when nothing was sent.
    let attempt: PublishAttempt?
    /// Where a completion-form ``retry(completion:)`` delivers.
    let context: PubNub.CompletionContext

    package init(
        error: PubNubError, status: PubNubStatus, attempt: PublishAttempt?, context: PubNub.CompletionContext
    ) {
        self.error = error
        self.status = status
        self.attempt = attempt
        self.context = context
    }

    /// What went wrong, as a status category (`.accessDenied`, `.badRequest`, …).
    public var category: PubNubStatus.Category { status.category }
    /// Which call failed: `.publish`, `.fire` or `.signal`.
    public var operation: PubNubStatus.Operation { status.operation }
    /// Always true: the seed's `status.isError` for a failed call.
    public var isError: Bool { status.isError }
    /// The HTTP status of the service's answer, when there was one.
    public var statusCode: Int? { status.statusCode }
    /// The channels and channel groups a refusal named, and a readable account of the failure.
    public var errorData: PubNubStatus.ErrorData? { status.errorData }
    /// The reason of ``error``, to match on.
    public var reason: PubNubError.Reason { error.reason }
    /// Whether the request was sent; false when the SDK refused it before sending, so that
    /// ``retry()`` cannot succeed.
    public var wasSent: Bool { attempt != nil }

    /// Sends the identical request again (see "Retrying" above) and returns the message's
    /// timetoken.
    ///
    /// - Throws: ``PubNubPublishError``: the retry's own failure (retry it in turn), or this
    ///   error again when nothing was sent the first time.
    @discardableResult
    public func retry() async throws(PubNubPublishError) -> Timetoken {
        guard let attempt else { throw self }
        return try await attempt.run()
    }

    /// Sends the identical request again; `completion` runs in the client's configured
    /// completion context with the timetoken or the retry's failure.
    public func retry(completion: (@Sendable (Result<Timetoken, PubNubPublishError>) -> Void)?) {
        let failure = self
        PublishCompletion.run(completion, context: context) { () async throws(PubNubPublishError) -> Timetoken in
            try await failure.retry()
        }
    }

    /// The status and the error, e.g.
    /// `PubNubPublishError(badRequest, publish, HTTP 400: Invalid Key)`.
    public var description: String {
        var text = "PubNubPublishError(\(category), \(operation)"
        if let statusCode { text += ", HTTP \(statusCode)" }
        return text + ": \(error.message))"
    }
}

extension PubNubPublishError: PubNubErrorWrapper {
    package var wrappedPubNubError: PubNubError { error }
}

/// One publish-family request, built and stamped, ready to be sent (again).
package struct PublishAttempt: Sendable {
    package let pipeline: ServicePipeline
    /// Built without `auth`: the auth middleware adds the current token each time it is sent.
    package let request: HTTPRequest
    package let custom: PubNub.RequestConfiguration
    package let operation: PubNubStatus.Operation

    /// Sends the request once (or as the per-request retry policy says) and reads the timetoken.
    package func run() async throws(PubNubPublishError) -> Timetoken {
        let response: HTTPResponse
        do {
            response = try await pipeline.exchange(request, chain: .retrying, custom: custom)
        } catch {
            throw PubNubPublishError(
                error: error, status: .failure(error, operation: operation), attempt: self,
                context: pipeline.configuration.completionContext)
        }
        do {
            return try MessagingResponse.publishTimetoken(response)
        } catch {
            throw PubNubPublishError(
                error: error, status: .failure(error, operation: operation, body: response.body), attempt: self,
                context: pipeline.configuration.completionContext)
        }
    }
}

/// The completion form of the publish family: runs a typed-throwing operation in a new task and
/// hands its result to the completion in the client's completion context.
enum PublishCompletion {
    static func run(
        _ completion: (@Sendable (Result<Timetoken, PubNubPublishError>) -> Void)?,
        context: PubNub.CompletionContext,
        _ operation: @escaping @Sendable () async throws(PubNubPublishError) -> Timetoken
    ) {
        Task {
            let result: Result<Timetoken, PubNubPublishError>
            do throws(PubNubPublishError) {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            guard let completion else { return }
            context.run { completion(result) }
        }
    }
}
