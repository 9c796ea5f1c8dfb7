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
        .library(name: "FilterExpression", targets: ["FilterExpression"]),
        .library(name: "Transport", targets: ["Transport"]),
        .library(name: "Auth", targets: ["Auth"]),
        .library(name: "EmulatorHTTP", targets: ["EmulatorHTTP"]),
        .library(name: "DataSyncEmulator", targets: ["DataSyncEmulator"]),
        .library(name: "DataSyncTestSupport", targets: ["DataSyncTestSupport"]),
        .library(name: "DataSyncModels", targets: ["DataSyncModels"]),
        .library(name: "PubNubCore", targets: ["PubNubCore"]),
        .library(name: "DataSync", targets: ["DataSync"]),
        .library(name: "PubNubCrypto", targets: ["PubNubCrypto"]),
        .library(name: "Realtime", targets: ["Realtime"]),
        .library(name: "Messaging", targets: ["Messaging"]),
        .library(name: "DataSyncLive", targets: ["DataSyncLive"]),
        .executable(name: "datasync-quickstart", targets: ["datasync-quickstart"]),
        .executable(name: "datasync-emulator", targets: ["datasync-emulator"]),
        .executable(name: "datasync-bench", targets: ["datasync-bench"]),
    ],
    targets: [
        // Libraries
        .target(name: "JSONCore"),
        .target(name: "JSONPatch", dependencies: ["JSONCore"]),
        .target(name: "FilterExpression", dependencies: ["JSONCore"]),
        .target(name: "Transport", dependencies: ["CCurl"]),
        .target(name: "Auth", dependencies: ["JSONCore", "Transport"]),
        .target(name: "EmulatorHTTP", dependencies: ["JSONCore", "CZlib", "CEpoll"]),
        .target(name: "DataSyncEmulator", dependencies: ["EmulatorHTTP", "JSONCore", "JSONPatch", "FilterExpression"]),
        .target(
            name: "DataSyncTestSupport", dependencies: ["JSONCore", "Transport", "PubNubCore", "DataSyncEmulator"]),
        .target(name: "DataSyncModels", dependencies: ["JSONCore", "JSONPatch"]),
        // The shared service pipeline and the client every feature extends.
        .target(name: "PubNubCore", dependencies: ["DataSyncModels", "JSONCore", "Transport", "Auth", "PubNubCrypto"]),
        // Features: siblings over PubNubCore that never import each other.
        .target(
            name: "DataSync",
            dependencies: ["PubNubCore", "DataSyncModels", "JSONCore", "JSONPatch", "Transport", "FilterExpression"]),
        // Message encryption (PubNub's crypto module): libcrypto at run time, CommonCrypto on Apple.
        .target(name: "PubNubCrypto", dependencies: ["CCrypto", "JSONCore"]),
        // The subscribe loop, subscriptions, listeners and presence heartbeats (Documentation/Realtime.md).
        .target(
            name: "Realtime",
            dependencies: ["PubNubCore", "DataSyncModels", "JSONCore", "Transport", "Auth", "PubNubCrypto"]
        ),
        // Live views: where DataSync (REST) and Realtime (the subscribe loop) meet
        // (Documentation/LiveViews.md).
        .target(
            name: "DataSyncLive",
            dependencies: ["DataSync", "Realtime", "PubNubCore", "DataSyncModels", "JSONCore", "Auth"]),
        // Publish, fire, signal, channel groups, presence REST calls and time (Documentation/Messaging.md).
        .target(
            name: "Messaging",
            dependencies: ["PubNubCore", "DataSyncModels", "JSONCore", "Transport", "Auth", "PubNubCrypto", "CZlib"]),

        // System and C shims
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "CEpoll"),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),

        // Executables
        .executableTarget(name: "datasync-quickstart", dependencies: ["DataSync", "Realtime", "DataSyncEmulator"]),
        .executableTarget(name: "datasync-emulator", dependencies: ["DataSyncEmulator", "JSONCore"]),
        .executableTarget(
            name: "datasync-bench",
            dependencies: [
                "JSONCore", "JSONPatch", "FilterExpression", "Auth", "Transport", "DataSyncEmulator", "EmulatorHTTP",
                "DataSyncTestSupport", "DataSyncModels", "PubNubCore", "DataSync",
                "PubNubCrypto", "Realtime", "Messaging", "DataSyncLive",
            ]
        ),

        // Fuzz harnesses (Documentation/Fuzzing.md)
        .target(name: "FuzzSupport"),
        .executableTarget(name: "fuzz-json", dependencies: ["JSONCore", "FuzzSupport"]),
        .executableTarget(name: "fuzz-jsonpatch", dependencies: ["JSONCore", "JSONPatch", "FuzzSupport"]),
        .executableTarget(name: "fuzz-filter", dependencies: ["FilterExpression", "JSONCore", "FuzzSupport"]),
        .executableTarget(name: "fuzz-auth", dependencies: ["Auth", "FuzzSupport"]),
        .executableTarget(name: "fuzz-subscribe", dependencies: ["Realtime", "FuzzSupport"]),
        .executableTarget(
            name: "fuzz-token-verifier", dependencies: ["DataSyncEmulator", "FuzzSupport", "JSONCore"]),

        // Tests
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore", "DataSyncTestSupport"]),
        .testTarget(name: "JSONPatchTests", dependencies: ["JSONCore", "JSONPatch", "DataSyncTestSupport"]),
        .testTarget(
            name: "FilterExpressionTests", dependencies: ["FilterExpression", "JSONCore", "DataSyncTestSupport"]),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "DataSyncTestSupport", "JSONCore", "Transport"]),
        .testTarget(
            name: "PubNubCoreTests",
            dependencies: ["PubNubCore", "DataSyncModels", "DataSyncTestSupport", "Transport", "Auth", "JSONCore"]),
        .testTarget(
            name: "DataSyncTests",
            dependencies: [
                "DataSync", "PubNubCore", "DataSyncModels", "DataSyncTestSupport", "JSONCore", "JSONPatch", "Transport",
                "Auth",
                "DataSyncEmulator",
            ]),
        .testTarget(name: "EmulatorHTTPServerTests", dependencies: ["EmulatorHTTP", "JSONCore"]),
        .testTarget(
            name: "TransportTests", dependencies: ["Transport", "DataSyncTestSupport", "EmulatorHTTP", "JSONCore"]),
        .testTarget(
            name: "DataSyncIntegrationTests", dependencies: ["DataSync", "DataSyncEmulator", "Transport", "JSONCore"]),
        .testTarget(
            name: "RealtimeTests",
            dependencies: [
                "Realtime", "PubNubCore", "DataSyncTestSupport", "JSONCore", "Transport", "Auth", "PubNubCrypto",
            ]),
        .testTarget(
            name: "RealtimeIntegrationTests",
            dependencies: [
                "Realtime", "Messaging", "PubNubCore", "DataSyncEmulator", "EmulatorHTTP", "DataSyncTestSupport",
                "JSONCore", "Transport", "PubNubCrypto",
            ]),
        .testTarget(
            name: "DataSyncTestSupportTests",
            dependencies: ["DataSyncTestSupport", "Transport", "JSONCore", "DataSync", "PubNubCore"]),
        .testTarget(
            name: "DataSyncEmulatorTests",
            dependencies: ["DataSyncEmulator", "EmulatorHTTP", "JSONCore", "DataSyncTestSupport"]),
        .testTarget(name: "PubNubCryptoTests", dependencies: ["PubNubCrypto", "JSONCore", "DataSyncTestSupport"]),
        .testTarget(name: "PubSubEmulatorTests", dependencies: ["DataSyncEmulator", "EmulatorHTTP", "JSONCore"]),
        .testTarget(name: "DataSyncEventsTests", dependencies: ["DataSyncEmulator", "EmulatorHTTP", "JSONCore"]),
        .testTarget(
            name: "DataSyncRealtimeIntegrationTests",
            dependencies: [
                "Realtime", "DataSync", "DataSyncEmulator", "PubNubCore", "DataSyncModels", "Transport", "JSONCore",
            ]),
        .testTarget(
            name: "DataSyncLiveTests",
            dependencies: [
                "DataSyncLive", "DataSync", "Realtime", "DataSyncEmulator", "DataSyncTestSupport", "PubNubCore",
                "DataSyncModels", "Transport", "JSONCore", "EmulatorHTTP", "Auth",
            ]),
        .testTarget(
            name: "AccessControlTests",
            dependencies: ["DataSyncEmulator", "EmulatorHTTP", "JSONCore", "Auth", "DataSyncTestSupport", "Transport"]),
        .testTarget(
            name: "MessagingTests",
            dependencies: [
                "Messaging", "PubNubCore", "DataSyncModels", "DataSyncTestSupport", "JSONCore", "Transport",
                "PubNubCrypto",
            ]),
        .testTarget(
            name: "DocSnippetTests",
            dependencies: [
                "JSONCore", "JSONPatch", "Transport", "Auth", "DataSyncModels", "PubNubCore", "DataSync",
                "PubNubCrypto", "EmulatorHTTP", "DataSyncTestSupport", "DataSyncLive",
                // Only imported by snippets that show a module working with another (encryption
                // on publish); their own documentation is not checked here.
                "Messaging",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: upcomingFeatures)
    target.swiftSettings = settings
}
