package import DataSyncModels
import JSONCore
package import PubNubCore
package import Transport

/// The shared machinery behind every DataSync method: builds the HTTP request, sends it through
/// the middleware chain and maps the answer to a model or a `PubNubError`.
package struct DataSyncEngine: Sendable {
    /// The client's shared pipeline: origin, stamping, auth, retry, error mapping.
    package let pipeline: ServicePipeline
    let filterValidator: DataSyncFilterValidator

    package init(pipeline: ServicePipeline, filterValidator: DataSyncFilterValidator) {
        self.pipeline = pipeline
        self.filterValidator = filterValidator
    }

    /// The configuration of the client this engine belongs to.
    package var configuration: PubNubConfiguration { pipeline.configuration }

    /// The full HTTP request for `call` as the pipeline stamps it (origin, `uuid`, `pnsdk`, the
    /// per-request overrides). The auth middleware adds `auth` later.
    package func httpRequest(for call: DataSyncCall, custom: PubNub.RequestConfiguration) throws -> HTTPRequest {
        try pipeline.request(call.serviceCall(subscribeKey: configuration.subscribeKey), custom: custom)
    }

    /// Sends `call` through the retrying chain and returns a 2xx response, or throws a
    /// `PubNubError`.
    package func send(_ call: DataSyncCall, custom: PubNub.RequestConfiguration) async throws -> HTTPResponse {
        try await pipeline.send(httpRequest(for: call, custom: custom), chain: .retrying, custom: custom)
    }

    /// Sends `call` and decodes the single object of its answer.
    package func object<T: DataSyncWireConvertible>(
        _ type: T.Type, _ call: DataSyncCall, custom: PubNub.RequestConfiguration
    ) async throws -> T {
        let response = try await send(call, custom: custom)
        if response.body.count >= Self.offActorDecodeBytes {
            return try await Self.decodeOffActor(response) { try DataSyncEnvelope.object(type, from: $0) }
        }
        return try Self.withStatus(response.status) { try DataSyncEnvelope.object(type, from: response.body) }
    }

    /// Sends `call` and decodes the objects and page of its answer.
    package func list<T: DataSyncWireConvertible>(
        _ type: T.Type, _ call: DataSyncCall, custom: PubNub.RequestConfiguration
    ) async throws -> ([T], PubNubDataSyncPage?) {
        let response = try await send(call, custom: custom)
        if response.body.count >= Self.offActorDecodeBytes {
            return try await Self.decodeOffActor(response) { try DataSyncEnvelope.list(type, from: $0) }
        }
        return try Self.withStatus(response.status) { try DataSyncEnvelope.list(type, from: response.body) }
    }

    /// Answers at least this large are decoded on the global executor rather than on the caller's
    /// actor: a page of objects takes long enough to decode that a caller on the main actor would
    /// notice, while a single small object decodes in less time than a hop there and back costs.
    static let offActorDecodeBytes = 16 * 1024

    /// Decodes `response` off the caller's actor.
    @concurrent
    private static func decodeOffActor<R: Sendable>(
        _ response: HTTPResponse, _ decode: @Sendable ([UInt8]) throws -> R
    ) async throws -> R {
        try withStatus(response.status) { try decode(response.body) }
    }

    /// Checks the filter arguments locally when the configuration asks for it.
    package func validate(filterFast: String?, filter: String?, sort: [PubNubDataSyncSortField]) throws {
        try filterValidator.validate(filterFast: filterFast, filter: filter, sort: sort)
    }

    private static func withStatus<R>(_ status: Int, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch var error as PubNubError {
            error.statusCode = error.statusCode ?? status
            throw error
        }
    }

    /// The completion form of an `async` operation; see ``ServicePipeline/complete(_:_:)``.
    package func complete<T: Sendable>(
        _ completion: (@Sendable (Result<T, any Error>) -> Void)?, _ operation: @escaping @Sendable () async throws -> T
    ) {
        pipeline.complete(completion, operation)
    }
}
