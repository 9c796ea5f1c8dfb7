import JSONCore
public import PubNubCore

extension PubNub {
    /// The service's current timetoken (`GET /time/0`): 17 digits, 100 ns units since the Unix
    /// epoch. Useful to stamp events in the service's clock or to check that the service is reachable.
    ///
    /// - Throws: `PubNubError`: transport failures, the reason of an error status, or
    ///   `.malformedResponse` when the answer is not `[<timetoken>]`.
    ///
    /// ```swift
    /// let now = try await pubnub.time()
    /// ```
    public func time(
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> Timetoken {
        let response = try await pipeline.exchange(MessagingCall.time, custom: requestConfig)
        guard response.isSuccess else {
            throw MessagingResponse.error(statusCode: response.status, body: response.body)
        }
        guard let first = (try? JSONValue(parsing: response.body))?.arrayValue?.first,
            let timetoken = MessagingResponse.timetoken(first)
        else {
            throw PubNubError.malformedResponse("a time answer is not [<timetoken>]", statusCode: response.status)
        }
        return timetoken
    }

    /// Fetches the service's current timetoken; see the `async` form. `completion` runs in the
    /// configured context.
    public func time(
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Timetoken, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.time(custom: requestConfig) }
    }
}
