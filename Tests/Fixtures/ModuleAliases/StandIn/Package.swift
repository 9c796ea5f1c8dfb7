// swift-tools-version:6.0
// A stand-in for a package that ships modules named `Auth` and `Realtime`, as supabase-swift
// does: the App fixture next to it uses it together with this repository's modules of the same
// names, through SwiftPM's moduleAliases (Scripts/module-alias-check.sh).
import PackageDescription

let package = Package(
    name: "StandIn",
    products: [
        .library(name: "Auth", targets: ["Auth"]),
        .library(name: "Realtime", targets: ["Realtime"]),
    ],
    targets: [
        .target(name: "Auth"),
        .target(name: "Realtime"),
    ],
    swiftLanguageModes: [.v6]
)
