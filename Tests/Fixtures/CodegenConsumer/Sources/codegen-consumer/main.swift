// Uses the types DataSyncCodegenPlugin generated from Sources/Catalog/Catalog.datasync.json:
// their filters validate with FilterValidator against the definitions read from that file, and
// list calls that take them run against an emulator started in process with the same file.
import Catalog
import DataSync
import DataSyncEmulator
import FilterExpression
import Foundation
import JSONCore
import Realtime

struct CheckFailure: Error, CustomStringConvertible {
    var description: String
}

var passed = 0
@MainActor func check(_ condition: Bool, _ what: String) throws {
    guard condition else { throw CheckFailure(description: what) }
    passed += 1
    print("✔ \(what)")
}

let definitionFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../Catalog/Catalog.datasync.json").standardizedFileURL
let definitions = try JSONValue(parsing: try Data(contentsOf: definitionFile))

/// The schema of one class as the definition file declares it (own properties; this check only
/// uses classes without a custom parent).
func schema(of className: String) -> FilterSchema {
    var schema = FilterSchema(className: className)
    for kind in ["entityClasses", "relationshipClasses"] {
        for item in definitions[kind]?.arrayValue ?? [] where item["name"]?.stringValue == className {
            for version in item["versions"]?.arrayValue ?? [] {
                guard let number = version["version"]?.intValue else { continue }
                schema.addVersion(number)
                for property in version["properties"]?.arrayValue ?? [] {
                    guard let name = property["name"]?.stringValue else { continue }
                    let mode = property["filtering"]?.stringValue ?? "none"
                    schema.declare(name, mode: FilteringMode(rawValue: mode), version: number)
                }
            }
        }
    }
    return schema
}

// MARK: The generated filters validate against the definitions

let product = schema(of: "Product")
try check(product == Product.filterSchema, "Product.filterSchema is the schema the definition file declares")

func validates<Class, Tier>(_ filter: TypedFilter<Class, Tier>, _ schema: FilterSchema) -> Bool {
    FilterValidator(schema: schema, classVersion: Class.classVersion).validate(filter.expression, tier: Tier.tier)
        .isEmpty && filter.validate().isEmpty
}

let full =
    Product.Filters.price < 100 && Product.Filters.title.like("*lamp*") && Product.Filters.onSale == true
    && Product.Filters.state != "discontinued" && Product.Filters.createdAt > "2020-01-01T00:00:00Z"
try check(validates(full, product), "filter over every `full` property validates for `filter`: \(full)")
let fast =
    Product.FastFilters.sku == "A-1" || (Product.FastFilters.stock >= 3 && Product.FastFilters.width <= 2.5)
    || Product.FastFilters.price > 1 || Product.FastFilters.id == "p1"
try check(validates(fast, product), "filterFast over `simple` and `full` properties validates: \(fast)")
try check(validates(Product.inStock, product), "a filter written over the generated properties validates")
try check(validates(Product.V1.Filters.title.hasPrefix("Old"), product), "a version 1 filter validates at version 1")
let sortProblems =
    TypedSortField.validate([Product.Sort.price.descending, Product.Sort.title])
    + TypedSortField.validate([Product.FastSort.stock, Product.FastSort.sku.descending])
try check(sortProblems.isEmpty, "typed sort keys validate alongside their tier")
// The definition really does keep `sku` out of `filter`: the same text fails that tier.
try check(
    !FilterValidator(schema: product).validate("sku == \"A-1\"", tier: .filter).isEmpty,
    "a `simple` property fails `filter` validation (what the types rule out)")

// MARK: The list calls, against the emulator started with the same definitions

let emulator = try Emulator(configuration: EmulatorConfiguration(classes: definitions))
let baseURL = try await emulator.start()
let origin = "\(baseURL.host ?? "127.0.0.1"):\(baseURL.port ?? 0)"
var configuration = PubNubConfiguration(
    publishKey: "demo", subscribeKey: "demo", userId: "codegen-consumer", origin: origin, useSecureConnections: false)
configuration.heartbeatInterval = .zero
let pubnub = PubNub(configuration: configuration)
let dataSync = pubnub.dataSync

let lamp = Product.Payload(
    price: 40, title: "Desk lamp", sku: "A-1", stock: 5, onSale: true, dimensions: .init(width: 1.5, height: 3),
    notes: "fragile", tags: ["home"])
_ = try await dataSync.createEntity(
    className: Product.className, classVersion: Product.latestVersion, id: "p1", status: "active", payload: lamp)
_ = try await dataSync.createEntity(
    className: Product.className, classVersion: Product.V2.classVersion, id: "p2", status: "active",
    payload: Product.Payload(price: 250, title: "Floor lamp", sku: "B-2", stock: 0))
_ = try await dataSync.createEntity(
    className: Product.className, classVersion: Product.V1.classVersion, id: "p0",
    payload: Product.V1.Payload(price: 10, title: "Old lamp"))
_ = try await dataSync.createUser(
    className: Employee.className, classVersion: Employee.latestVersion, id: "e1",
    payload: Employee.Payload(team: "core", level: 3, firstName: "Ada", name: "Ada L."))

let (cheap, _) = try await dataSync.getEntities(filter: Product.Filters.price < 100, sort: [Product.Sort.price])
try check(cheap.map(\.id) == ["p0", "p1"], "getEntities(filter:sort:) typed: \(cheap.map(\.id))")

let (inStock, _) = try await dataSync.getEntities(
    filterFast: Product.inStock && Product.FastFilters.sku == "A-1", sort: [Product.FastSort.stock.descending])
try check(inStock.map(\.id) == ["p1"], "getEntities(filterFast:sort:) typed: \(inStock.map(\.id))")
let decoded = try inStock.first?.payload(as: Product.Payload.self)
try check(decoded == lamp, "payload(as: Product.Payload.self) reads back what was written")

let (version1, _) = try await dataSync.getEntities(filter: Product.V1.Filters.price > 0)
try check(version1.map(\.id) == ["p0"], "a version 1 filter lists version 1: \(version1.map(\.id))")

var everyProduct: [String] = []
for try await entity in dataSync.entities(pageSize: 1, sort: [Product.Sort.price.descending]) {
    everyProduct.append(entity.id)
}
try check(everyProduct == ["p2", "p1", "p0"], "the entities sequence with typed sort keys: \(everyProduct)")

let (untyped, _) = try await dataSync.getEntities(className: "Product", filter: Filter.property("price") >= 200)
try check(untyped.map(\.id) == ["p2"], "the untyped Filter builder in place of a string: \(untyped.map(\.id))")

let (core, _) = try await dataSync.getUsers(
    filter: Employee.Filters.team == "core" && Employee.Filters.name.like("Ada*"))
try check(
    core.map(\.id) == ["e1"] && (try core.first?.payload(as: Employee.Payload.self))?.firstName == "Ada",
    "getUsers with an Employee filter (inherited `name` included): \(core.map(\.id))")

// MARK: Projection names

let warehouse = try pubnub.dataSyncEntity("p1").channelName(projection: Product.Projections.warehouse)
_ = try pubnub.dataSyncEntity("p1").subscription(projection: Product.Projections.warehouse)
try check(
    warehouse == "__warehouse__p1" && Product.Projections.allNames == ["public", "warehouse"],
    "projection constants name the channels subscription(projection:) uses: \(warehouse)")

await emulator.stop()
print("codegen-consumer: \(passed) checks passed")
