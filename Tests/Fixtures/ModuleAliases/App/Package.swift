// swift-tools-version:6.0
// An app that uses this repository's Realtime and Auth modules next to another package's modules
// of the same names (StandIn): SwiftPM's moduleAliases rename ours in this app's build. Built by
// Scripts/module-alias-check.sh; Documentation/Install.md shows the same declaration.
import Foundation
import PackageDescription

// The root package's identity is its directory's name (lower-cased), which differs between
// checkouts; products are looked up under it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../..")
    .standardizedFileURL
let rootPackage = root.lastPathComponent.lowercased()

let package = Package(
    name: "App",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "../../../.."), .package(path: "../StandIn")],
    targets: [
        .executableTarget(
            name: "alias-app",
            dependencies: [
                .product(name: "Auth", package: "StandIn"),
                .product(name: "Realtime", package: "StandIn"),
                .product(
                    name: "Realtime", package: rootPackage,
                    moduleAliases: ["Realtime": "DataSyncRealtime", "Auth": "DataSyncAuth"]),
                .product(name: "Auth", package: rootPackage, moduleAliases: ["Auth": "DataSyncAuth"]),
            ])
    ],
    swiftLanguageModes: [.v6]
)
