// The one place where the facade meets the modules built alongside it (Auth, the Transport
// backends and retry, FilterExpression, JSONPatch's wire coding). Everything else in DataSync
// depends only on the protocols and value types of Transport and DataSyncModels.

package import DataSyncModels
import Transport

/// The wiring of one client: its transport, middleware chain and filter validator.
struct PubNubWiring: Sendable {
    let engine: DataSyncEngine

    init(configuration: PubNubConfiguration) {
        let transport: Result<any HTTPClient, PubNubError>
        if let configured = configuration.transport {
            transport = .success(configured)
        } else {
            transport = .failure(
                PubNubError(
                    reason: .invalidConfiguration,
                    message: "no default HTTP transport is available in this build; set `transport`"))
        }
        engine = DataSyncEngine(
            configuration: configuration, transport: transport, middlewares: configuration.middlewares,
            filterValidator: DataSyncFilterValidator())
    }
}

/// Local validation of filter and sort arguments (off unless the configuration switches it on).
package struct DataSyncFilterValidator: Sendable {
    package init() {}

    package func validate(filterFast: String?, filter: String?, sort: [PubNubDataSyncSortField]) throws {}
}
