// swift-tools-version:6.0
import PackageDescription

// Upcoming language features applied to every target in one place, so no module drifts.
let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "DataSyncSwift",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "JSONCore", targets: ["JSONCore"]),
        .library(name: "JSONPatch", targets: ["JSONPatch"]),
        .library(name: "Transport", targets: ["Transport"]),
        .library(name: "DataSyncEmulator", targets: ["DataSyncEmulator"]),
        .library(name: "DataSyncTestSupport", targets: ["DataSyncTestSupport"]),
        .executable(name: "datasync-bench", targets: ["datasync-bench"]),
    ],
    targets: [
        .target(name: "JSONCore"),
        .target(name: "JSONPatch", dependencies: ["JSONCore"]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "Transport", dependencies: ["CCurl"]),
        .target(name: "DataSyncEmulator", dependencies: ["JSONCore"]),
        .target(name: "DataSyncTestSupport", dependencies: ["JSONCore", "Transport"]),
        .executableTarget(name: "fuzz-json", dependencies: ["JSONCore"]),
        .executableTarget(name: "datasync-bench", dependencies: ["JSONCore", "JSONPatch"]),
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore"]),
        .testTarget(
            name: "TransportTests", dependencies: ["Transport", "DataSyncTestSupport", "DataSyncEmulator", "JSONCore"]),
        .testTarget(name: "DataSyncTestSupportTests", dependencies: ["DataSyncTestSupport", "Transport", "JSONCore"]),
        .testTarget(name: "JSONPatchTests", dependencies: ["JSONCore", "JSONPatch"]),
        .executableTarget(name: "fuzz-jsonpatch", dependencies: ["JSONCore", "JSONPatch"]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: upcomingFeatures)
    target.swiftSettings = settings
}
