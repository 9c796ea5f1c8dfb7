import DataSyncModels
import JSONCore
import PubNubCore
import Transport

/// The DataSync API of a `PubNub` client, reached as `pubnub.dataSync`.
///
/// Every operation exists in two forms with the same name and parameters:
/// - `async throws` (primary): `let user = try await pubnub.dataSync.getUser(id: "u1")`;
/// - with a `completion` closure that receives a `Result`, run in the configuration's
///   `PubNub.CompletionContext` (by default directly on the concurrency thread that finished
///   the request; no main run loop is needed).
///
/// Errors are `PubNubError` values: local argument checks fail with `.missingRequiredParameter`
/// before anything is sent; service answers map to a reason that follows the HTTP status.
///
/// List operations return one page and a `PubNubDataSyncPage`; the sequences
/// (``users(className:classVersion:classLevel:pageSize:filterFast:filter:sort:custom:)-(_,_,_,_,String?,_,_,_)`` and
/// friends) fetch page after page lazily.
/// The list operations' sequence, typed-filter and `Filter`-builder forms come from
/// ``DataSyncListing``, which this type conforms to.
public struct PubNubDataSync: Sendable {
    package let engine: DataSyncEngine
}
