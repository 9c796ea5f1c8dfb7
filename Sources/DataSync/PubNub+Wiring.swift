// Where the DataSync feature attaches to the client (`pubnub.dataSync`) and the one place it uses
// FilterExpression (local validation of filter arguments). Origin, stamping, auth, retry and error
// mapping are the shared pipeline's (PubNubCore).

package import DataSyncModels
import FilterExpression
public import PubNubCore

extension PubNub {
    /// The DataSync API: users, channels, memberships, entities and relationships.
    ///
    /// Cheap to call: a small value over the client's shared pipeline.
    public var dataSync: PubNubDataSync {
        PubNubDataSync(
            engine: DataSyncEngine(
                pipeline: pipeline,
                filterValidator: DataSyncFilterValidator(enabled: configuration.validatesFiltersLocally)))
    }

    /// One key of a list ordering; see `PubNubDataSyncSortField` (from `DataSyncModels`).
    public typealias DataSyncSortField = PubNubDataSyncSortField
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
