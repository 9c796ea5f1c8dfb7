// The one place where the facade meets the modules built alongside it: Auth (token store, auth
// middleware), the Transport backends and retry and FilterExpression.
// Everything else in DataSync depends only on the protocols and value types of Transport and
// DataSyncModels.

import Auth
package import DataSyncModels
import FilterExpression
import Transport

/// The wiring of one client: its token store and the engine with transport and middlewares.
struct PubNubWiring: Sendable {
    let engine: DataSyncEngine
    let tokenStore: TokenStore

    init(configuration: PubNubConfiguration) {
        let tokenStore = TokenStore(token: configuration.authToken)
        self.tokenStore = tokenStore
        let transport: Result<any HTTPClient, PubNubError>
        if let configured = configuration.transport {
            transport = .success(configured)
        } else {
            do {
                transport = .success(try PlatformHTTPClient.make())
            } catch {
                transport = .failure(
                    PubNubError(reason: .invalidConfiguration, message: "no HTTP transport could be created: \(error)"))
            }
        }
        var middlewares: [any HTTPMiddleware] = []
        middlewares.append(AuthMiddleware(store: tokenStore, provider: configuration.tokenProvider))
        middlewares += configuration.middlewares
        engine = DataSyncEngine(
            configuration: configuration, transport: transport, middlewares: middlewares,
            filterValidator: DataSyncFilterValidator(enabled: configuration.validatesFiltersLocally))
    }
}

extension PubNub {
    /// Replaces the Access Manager token; every later request carries the new one.
    ///
    /// Safe to call from any thread, at any time, including while requests are in flight.
    ///
    /// ```swift
    /// pubnub.set(token: tokenFromYourServer)
    /// ```
    public func set(token: String) {
        wiring.tokenStore.set(token: token)
    }
}

/// Local validation of filter and sort arguments with the FilterExpression module, when the
/// configuration switches it on (``PubNubConfiguration/validatesFiltersLocally``).
package struct DataSyncFilterValidator: Sendable {
    let enabled: Bool

    package init(enabled: Bool = false) {
        self.enabled = enabled
    }

    package func validate(filterFast: String?, filter: String?, sort: [PubNubDataSyncSortField]) throws {
        guard enabled else { return }
        var problems: [PubNubError.Detail] = []
        if filterFast != nil && filter != nil {
            problems.append(
                PubNubError.Detail(message: "send at most one of filterFast and filter", path: "filter"))
        }
        let validator = FilterValidator()
        if let filterFast {
            problems += validator.validate(filterFast, tier: .filterFast).map { detail($0, "filterFast") }
        }
        if let filter {
            problems += validator.validate(filter, tier: .filter).map { detail($0, "filter") }
        }
        if !sort.isEmpty {
            let fields = FilterSort(sort.map { FilterSort.Field($0.property, ascending: $0.ascending) })
            let tier: FilterTier? = filter != nil ? .filter : (filterFast != nil ? .filterFast : nil)
            problems += validator.validateSort(fields, alongside: tier).map { detail($0, "sort") }
        }
        guard problems.isEmpty else {
            throw PubNubError(
                reason: .invalidFilterExpression,
                message: problems.map(\.description).joined(separator: "; ") + "; nothing was sent",
                details: problems)
        }
    }

    private func detail(_ error: FilterError, _ parameter: String) -> PubNubError.Detail {
        PubNubError.Detail(errorCode: error.code.rawValue, message: error.description, path: parameter)
    }
}
