// swift-tools-version:6.0
// A consumer of the DataSync package that uses the codegen plugin, for Scripts/plugin-check.sh.
// It depends on the repository root by relative path and builds into its own .build.
import Foundation
import PackageDescription

// The root package's identity is its directory's name (lower-cased), which differs between
// checkouts; products are looked up under it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..")
    .standardizedFileURL
let rootPackage = root.lastPathComponent.lowercased()

func product(_ name: String) -> Target.Dependency { .product(name: name, package: rootPackage) }

let codegen = Target.PluginUsage.plugin(name: "DataSyncCodegenPlugin", package: rootPackage)

let package = Package(
    name: "CodegenConsumer",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "../../..")],
    targets: [
        // The classes of Catalog.datasync.json, generated at build time; public through
        // datasync-codegen.json.
        .target(
            name: "Catalog", dependencies: [product("FilterExpression"), product("JSONCore")],
            plugins: [codegen]),
        .executableTarget(
            name: "codegen-consumer",
            dependencies: [
                "Catalog", product("DataSync"), product("DataSyncEmulator"), product("Realtime"),
                product("FilterExpression"), product("JSONCore"),
            ]),
        // Built on its own by the check script: a definition with an error fails the build.
        .target(
            name: "BrokenDefinitions", dependencies: [product("FilterExpression"), product("JSONCore")],
            plugins: [codegen]),
        // Built on its own by the check script: filters the tiers do not permit must not compile.
        .target(name: "TierMisuse", dependencies: ["Catalog", product("DataSync"), product("FilterExpression")]),
    ],
    swiftLanguageModes: [.v6]
)
