// swift-tools-version:6.2
import PackageDescription

// Upcoming language features applied to every target in one place, so no module drifts.
let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The client's request path runs on its caller's actor: in these modules a `nonisolated` async
// function does not hop to the global executor (SE-0461), so a call made on the main actor costs
// no thread switch beyond the network's. Work that must leave the caller's actor says so with
// `@concurrent` (large answers are decoded that way). The loops of Realtime and DataSyncLive run
// in tasks of their own and keep the default.
let callerIsolatedTargets: Set<String> = [
    "Transport", "Auth", "PubNubCore", "DataSync", "Messaging", "MessagePersistence", "FileSharing", "MobilePush",
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
        .library(name: "MessagePersistence", targets: ["MessagePersistence"]),
        .library(name: "FileSharing", targets: ["FileSharing"]),
        .library(name: "MobilePush", targets: ["MobilePush"]),
        .library(name: "DataSyncLive", targets: ["DataSyncLive"]),
        .executable(name: "datasync-quickstart", targets: ["datasync-quickstart"]),
        .executable(name: "datasync-emulator", targets: ["datasync-emulator"]),
        .executable(name: "datasync-bench", targets: ["datasync-bench"]),
        .executable(name: "datasync-codegen", targets: ["datasync-codegen"]),
        // Typed payloads, filters and projections from class definitions (Plugins/README.md).
        .plugin(name: "DataSyncCodegenPlugin", targets: ["DataSyncCodegenPlugin"]),
        .plugin(name: "DataSyncCodegenCommand", targets: ["DataSyncCodegenCommand"]),
        // The command line (Documentation/CLI.md). The target is not named `datasync`: on a
        // case-insensitive file system that would clash with the `DataSync` module.
        .executable(name: "datasync", targets: ["datasync-cli"]),
    ],
    targets: [
        // Libraries
        .target(name: "JSONCore"),
        // What every module shares: PubNubError, the one lock wrapper (`Locked`), Timetoken, the
        // logging types (so the emulator, which does not depend on PubNubCore, logs through them).
        // Not a product: users reach its public types through the modules that re-export them.
        .target(name: "PubNubBase"),
        // The package's version, written once: `pnsdk` and every executable's `--version`.
        .target(name: "BuildInfo"),
        // The one argument parser of every executable (help, version, exit statuses, did-you-mean);
        // package-only, not a product.
        .target(name: "ArgumentParsing", dependencies: ["BuildInfo"]),
        .target(name: "JSONPatch", dependencies: ["JSONCore"]),
        .target(name: "FilterExpression", dependencies: ["JSONCore"]),
        .target(name: "Transport", dependencies: ["PubNubBase", "CCurl"]),
        .target(name: "Auth", dependencies: ["PubNubBase", "JSONCore", "Transport"]),
        .target(name: "EmulatorHTTP", dependencies: ["PubNubBase", "JSONCore", "CZlib", "CEpoll"]),
        .target(
            name: "DataSyncEmulator",
            dependencies: [
                "EmulatorHTTP", "PubNubBase", "JSONCore", "JSONPatch", "FilterExpression", "ArgumentParsing",
                "ClassDocumentFormat",
            ],
            // The web console (Documentation/Emulator.md, "Web console"), compiled in so it needs no
            // resource bundle at run time.
            resources: [
                .embedInCode("Console/index.html"), .embedInCode("Console/console.css"),
                .embedInCode("Console/console.js"),
            ]),
        .target(
            name: "DataSyncTestSupport",
            dependencies: ["PubNubBase", "JSONCore", "Transport", "PubNubCore", "PubNubCrypto", "DataSyncEmulator"]),
        .target(name: "DataSyncModels", dependencies: ["PubNubBase", "JSONCore", "JSONPatch"]),
        // The shared service pipeline and the client every feature extends.
        .target(
            name: "PubNubCore",
            dependencies: ["PubNubBase", "JSONCore", "Transport", "Auth", "PubNubCrypto", "BuildInfo"]),
        // Features: siblings over PubNubCore that never import each other.
        .target(
            name: "DataSync",
            dependencies: ["PubNubCore", "DataSyncModels", "JSONCore", "JSONPatch", "Transport", "FilterExpression"]),
        // Message encryption (PubNub's crypto module): libcrypto at run time, CommonCrypto on Apple.
        .target(name: "PubNubCrypto", dependencies: ["CCrypto", "JSONCore"]),
        // The subscribe loop, subscriptions, listeners and presence heartbeats (Documentation/Realtime.md).
        .target(
            name: "Realtime",
            dependencies: ["PubNubCore", "PubNubBase", "DataSyncModels", "JSONCore", "Transport", "PubNubCrypto"]),
        // Live views: where DataSync (REST) and Realtime (the subscribe loop) meet
        // (Documentation/LiveViews.md).
        .target(
            name: "DataSyncLive",
            dependencies: ["DataSync", "Realtime", "PubNubCore", "PubNubBase", "DataSyncModels", "JSONCore"]),
        // Publish, fire, signal, channel groups, presence REST calls and time (Documentation/Messaging.md).
        .target(
            name: "Messaging",
            dependencies: ["PubNubCore", "PubNubBase", "JSONCore", "Transport", "PubNubCrypto", "CZlib"]),
        // Message history (fetch, delete, counts) and message actions (Documentation/History.md,
        // Documentation/MessageActions.md). Not `History`: too likely a module name in an app.
        .target(
            name: "MessagePersistence",
            dependencies: ["PubNubCore", "PubNubBase", "JSONCore", "Transport", "PubNubCrypto"]),
        // Send, list, download and delete files (Documentation/Files.md). Not `Files`: too likely
        // a module name in an app.
        .target(
            name: "FileSharing",
            dependencies: ["PubNubCore", "PubNubBase", "JSONCore", "Transport", "PubNubCrypto"]),
        // Mobile push device registrations (Documentation/MobilePush.md). Not `Push`: too generic
        // a module name for an app to be without.
        .target(name: "MobilePush", dependencies: ["PubNubCore", "PubNubBase", "JSONCore", "Transport"]),

        // System and C shims
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "CEpoll"),
        // How CCurl and CCrypto open their library at run time and bind its functions.
        .target(name: "CLibraryLoader", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "CCurl", dependencies: ["CLibraryLoader"]),
        .target(name: "CCrypto", dependencies: ["CLibraryLoader"]),

        // Executables
        // DataSyncTestSupport and Transport only for its server role (ServerRole.swift), which mints tokens.
        .executableTarget(
            name: "datasync-quickstart",
            dependencies: [
                "DataSync", "Realtime", "DataSyncEmulator", "DataSyncTestSupport", "Transport", "ArgumentParsing",
            ]),
        .executableTarget(
            name: "datasync-emulator",
            dependencies: ["DataSyncEmulator", "EmulatorHTTP", "JSONCore", "ArgumentParsing"]),
        .executableTarget(
            name: "datasync-bench",
            dependencies: [
                "JSONCore", "JSONPatch", "FilterExpression", "Auth", "Transport", "DataSyncEmulator", "EmulatorHTTP",
                "DataSyncTestSupport", "DataSyncModels", "PubNubCore", "DataSync",
                "PubNubCrypto", "Realtime", "Messaging", "DataSyncLive",
                // The bare libcurl baseline of the transport group calls the shim directly.
                "CCurl", "ArgumentParsing",
            ]
        ),
        // The `datasync` CLI: the SDK through its public API only, plus the emulator library.
        .executableTarget(
            name: "datasync-cli",
            dependencies: [
                "DataSync", "Realtime", "Messaging", "PubNubCore", "DataSyncEmulator", "Transport", "ArgumentParsing",
                "BuildInfo", "Auth", "FileSharing",
                // AccessManagerTestServer signs `datasync grant`'s request (a server-side tool, as there).
                "DataSyncTestSupport",
                // `history` and `actions`.
                "MessagePersistence",
            ]),

        // The class-definition code generator and its plugins (Plugins/README.md).
        // The class-definition format both the emulator and the generator read (one parser, so the
        // two cannot drift apart); not a product.
        .target(name: "ClassDocumentFormat", dependencies: ["JSONCore"]),
        .executableTarget(
            name: "datasync-codegen", dependencies: ["JSONCore", "ArgumentParsing", "ClassDocumentFormat"]),
        .plugin(
            name: "DataSyncCodegenPlugin", capability: .buildTool(), dependencies: ["datasync-codegen"],
            path: "Plugins/DataSyncCodegenPlugin"),
        .plugin(
            name: "DataSyncCodegenCommand",
            capability: .command(
                intent: .custom(
                    verb: "datasync-codegen",
                    description: "Validate DataSync class-definition files and print what would be generated")),
            dependencies: ["datasync-codegen"], path: "Plugins/DataSyncCodegenCommand"),

        // Fuzz harnesses (Documentation/Fuzzing.md)
        .target(name: "FuzzSupport", dependencies: ["ArgumentParsing"]),
        .executableTarget(name: "fuzz-json", dependencies: ["JSONCore", "FuzzSupport"]),
        .executableTarget(name: "fuzz-jsonpatch", dependencies: ["JSONCore", "JSONPatch", "FuzzSupport"]),
        .executableTarget(name: "fuzz-filter", dependencies: ["FilterExpression", "JSONCore", "FuzzSupport"]),
        .executableTarget(name: "fuzz-auth", dependencies: ["Auth", "FuzzSupport"]),
        .executableTarget(name: "fuzz-subscribe", dependencies: ["Realtime", "FuzzSupport"]),
        .executableTarget(
            name: "fuzz-token-verifier", dependencies: ["DataSyncEmulator", "FuzzSupport", "JSONCore"]),
        .executableTarget(
            name: "fuzz-decoders",
            dependencies: ["DataSyncModels", "PubNubCore", "JSONCore", "Transport", "FuzzSupport"]),
        // The emulator's request parser, percent/query decoding and state-file restore (issue 18, point 14).
        .executableTarget(name: "fuzz-http", dependencies: ["EmulatorHTTP", "FuzzSupport"]),
        .executableTarget(name: "fuzz-percent", dependencies: ["DataSyncEmulator", "FuzzSupport"]),
        .executableTarget(name: "fuzz-state", dependencies: ["DataSyncEmulator", "FuzzSupport", "JSONCore"]),
        .executableTarget(
            name: "fuzz-pubsub", dependencies: ["DataSyncEmulator", "EmulatorHTTP", "FuzzSupport", "JSONCore"]),
        .executableTarget(name: "fuzz-multipart", dependencies: ["DataSyncEmulator", "FuzzSupport"]),

        // Tests
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore", "DataSyncTestSupport"]),
        .testTarget(name: "JSONPatchTests", dependencies: ["JSONCore", "JSONPatch", "DataSyncTestSupport"]),
        .testTarget(
            name: "FilterExpressionTests", dependencies: ["FilterExpression", "JSONCore", "DataSyncTestSupport"]),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "DataSyncTestSupport", "JSONCore", "Transport"]),
        .testTarget(
            name: "PubNubCoreTests",
            dependencies: [
                "PubNubBase",
                "PubNubCore", "DataSyncModels", "DataSyncTestSupport", "Transport", "Auth", "JSONCore", "PubNubCrypto",
            ]),
        .testTarget(
            name: "DataSyncTests",
            dependencies: [
                "DataSync", "PubNubCore", "DataSyncModels", "DataSyncTestSupport", "JSONCore", "JSONPatch", "Transport",
                "Auth",
                "DataSyncEmulator", "FilterExpression",
            ]),
        .testTarget(
            name: "EmulatorHTTPServerTests",
            dependencies: ["EmulatorHTTP", "DataSyncTestSupport", "JSONCore", "PubNubBase"]),
        .testTarget(
            name: "TransportTests",
            dependencies: [
                "Transport", "DataSyncTestSupport", "EmulatorHTTP", "JSONCore", "CLibraryLoader", "PubNubBase",
            ]),
        .testTarget(
            name: "DataSyncIntegrationTests",
            dependencies: ["DataSync", "DataSyncEmulator", "DataSyncTestSupport", "Transport", "JSONCore"]),
        .testTarget(
            name: "RealtimeTests",
            dependencies: [
                "PubNubBase",
                "Realtime", "PubNubCore", "DataSyncTestSupport", "JSONCore", "Transport", "Auth", "PubNubCrypto",
            ]),
        .testTarget(
            name: "RealtimeIntegrationTests",
            dependencies: [
                "PubNubBase",
                "Realtime", "Messaging", "PubNubCore", "DataSyncEmulator", "EmulatorHTTP", "DataSyncTestSupport",
                "JSONCore", "Transport", "PubNubCrypto", "DataSync",
            ]),
        .testTarget(
            name: "DataSyncTestSupportTests",
            dependencies: [
                "DataSyncTestSupport", "Transport", "JSONCore", "DataSync", "PubNubCore", "DataSyncEmulator",
            ]),
        .testTarget(
            name: "DataSyncEmulatorTests",
            dependencies: ["PubNubBase", "DataSyncEmulator", "EmulatorHTTP", "JSONCore", "DataSyncTestSupport"],
            // A copy of the spec's vectors (issue 19), so a fresh clone runs them.
            resources: [.copy("Resources/datasync-vectors.json")]),
        .testTarget(
            name: "EmulatorAdminTests",
            dependencies: ["DataSyncEmulator", "JSONCore", "DataSyncTestSupport", "Transport"]),
        .testTarget(
            name: "EmulatorConsoleTests",
            dependencies: [
                "DataSyncEmulator", "DataSync", "PubNubCore", "Transport", "JSONCore", "DataSyncTestSupport",
            ]),
        .testTarget(name: "PubNubCryptoTests", dependencies: ["PubNubCrypto", "JSONCore", "DataSyncTestSupport"]),
        .testTarget(
            name: "PubSubEmulatorTests",
            dependencies: ["DataSyncEmulator", "DataSyncTestSupport", "EmulatorHTTP", "JSONCore"]),
        .testTarget(
            name: "EmulatorHardeningTests",
            dependencies: ["PubNubBase", "DataSyncEmulator", "DataSyncTestSupport", "EmulatorHTTP", "JSONCore"]),
        .testTarget(
            name: "DataSyncEventsTests",
            dependencies: ["DataSyncEmulator", "EmulatorHTTP", "JSONCore", "DataSyncTestSupport"]),
        .testTarget(
            name: "DataSyncRealtimeIntegrationTests",
            dependencies: [
                "Realtime", "DataSync", "DataSyncEmulator", "DataSyncTestSupport", "PubNubCore", "DataSyncModels",
                "Transport", "JSONCore",
            ]),
        .testTarget(
            name: "DataSyncLiveTests",
            dependencies: [
                "PubNubBase",
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
                "PubNubCrypto", "DataSyncEmulator", "EmulatorHTTP",
            ],
            // A copy of the spec's vectors (issue 19), checked against the transcription.
            resources: [.copy("Resources/pubsub-vectors.json")]),
        .testTarget(
            name: "MessagePersistenceTests",
            dependencies: [
                "MessagePersistence", "Messaging", "Realtime", "PubNubCore", "DataSyncTestSupport", "JSONCore",
                "Transport", "PubNubCrypto", "DataSyncEmulator", "EmulatorHTTP",
            ]),
        .testTarget(
            name: "FileSharingTests",
            dependencies: [
                "FileSharing", "Realtime", "MessagePersistence", "PubNubCore", "PubNubBase", "DataSyncTestSupport",
                "JSONCore", "Transport", "PubNubCrypto", "DataSyncEmulator", "EmulatorHTTP",
            ]),
        .testTarget(
            name: "MobilePushTests",
            dependencies: [
                "MobilePush", "Messaging", "PubNubCore", "DataSyncTestSupport", "JSONCore", "Transport",
                "DataSyncEmulator", "EmulatorHTTP",
            ]),
        // The SDK against an emulator with Access Manager on (issue 14's SDK side).
        .testTarget(
            name: "AccessEndToEndTests",
            dependencies: [
                "DataSync", "Realtime", "Messaging", "PubNubCore", "DataSyncEmulator", "DataSyncTestSupport",
                "Transport", "JSONCore", "Auth",
            ]),
        .testTarget(
            name: "CodegenTests",
            dependencies: ["datasync-codegen", "JSONCore", "FilterExpression", "DataSyncEmulator"],
            exclude: ["Golden"]),
        .testTarget(
            name: "DocSnippetTests",
            dependencies: [
                "JSONCore", "JSONPatch", "Transport", "Auth", "DataSyncModels", "PubNubCore", "DataSync",
                "PubNubCrypto", "EmulatorHTTP", "DataSyncTestSupport", "FilterExpression", "Realtime", "Messaging",
                "DataSyncEmulator", "DataSyncLive", "MessagePersistence", "FileSharing", "MobilePush",
            ]),
        // Runs the built `datasync` binary against an in-process emulator; parser unit tests.
        .testTarget(
            name: "CLITests",
            dependencies: [
                "datasync-cli", "DataSyncEmulator", "DataSync", "JSONCore", "DataSyncTestSupport", "ArgumentParsing",
                "BuildInfo", "Transport",
            ]),
        // The row check of `datasync-bench --smoke` (CI's smoke run of every bench group).
        .testTarget(name: "BenchSmokeTests", dependencies: ["datasync-bench"]),
    ],
    swiftLanguageModes: [.v6]
)

// Plugin targets take no Swift settings: they are built by SwiftPM for the host with its own flags.
for target in package.targets where target.type != .system && target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: upcomingFeatures)
    if callerIsolatedTargets.contains(target.name) {
        settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    }
    target.swiftSettings = settings
}
