import DataSyncTestSupport
import Foundation

/// Where the documents, the built modules and the compiler are.
enum SnippetEnvironment {
    /// The modules whose documentation this test covers: their catalogs are read.
    static let catalogModules = [
        "JSONCore", "JSONPatch", "Transport", "Auth", "DataSyncModels", "PubNubCore", "DataSync", "PubNubCrypto",
        "EmulatorHTTP", "DataSyncTestSupport", "FilterExpression", "Realtime", "Messaging", "DataSyncEmulator",
        "DataSyncLive", "MessagePersistence", "FileSharing", "MobilePush",
    ]

    /// The guides in `Documentation/` that belong to those modules.
    static let guides = [
        "DataSyncGuide.md", "JSONCore.md", "JSONPatch.md", "Transport.md", "Authentication.md",
        "EmulatorHTTPServer.md", "Encryption.md", "FilterLanguage.md", "Realtime.md", "RealtimeFaults.md",
        "DataSyncRealtime.md", "Messaging.md", "Emulator.md", "LiveViews.md", "Logging.md", "History.md",
        "MessageActions.md", "Install.md", "CLI.md", "Architecture.md", "Benchmarks.md", "Fuzzing.md", "Files.md",
        "MobilePush.md",
    ]

    /// The package root: this file is `Tests/DocSnippetTests/SnippetEnvironment.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every document to check, relative to the package root, in a stable order.
    static func documents(in root: URL) -> [String] {
        let files = FileManager.default
        var documents = guides.map { "Documentation/" + $0 }
        for module in catalogModules {
            let catalog = "Sources/\(module)/\(module).docc"
            guard let entries = try? files.contentsOfDirectory(atPath: root.appendingPathComponent(catalog).path)
            else { continue }
            documents += entries.filter { $0.hasSuffix(".md") }.sorted().map { catalog + "/" + $0 }
        }
        return documents.filter { files.fileExists(atPath: root.appendingPathComponent($0).path) }
    }

    /// The build's `Modules` directory: found above the running test binary (on Linux
    /// `.build/<triple>/debug/<Package>PackageTests.xctest`, inside the bundle on Apple
    /// platforms), else asked of `swift build --show-bin-path`.
    static func modulesDirectory() async -> URL? {
        func modules(in directory: URL) -> URL? {
            let candidate = directory.appendingPathComponent("Modules")
            let marker = candidate.appendingPathComponent("PubNubCore.swiftmodule").path
            return FileManager.default.fileExists(atPath: marker) ? candidate : nil
        }
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            var directory = executable.deletingLastPathComponent()
            for _ in 0..<5 {
                if let found = modules(in: directory) { return found }
                directory = directory.deletingLastPathComponent()
            }
        }
        let binPath = await Compiler.run(["swift", "build", "--show-bin-path"], in: packageRoot)
        guard binPath.status == 0 else { return nil }
        let path = binPath.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return modules(in: URL(fileURLWithPath: path))
    }

    /// The name SwiftPM gives `-package-name` for this package: its directory's name in lower case,
    /// made a C99 identifier, the way SwiftPM derives it from the package identity.
    static func packageName(of root: URL) -> String {
        var name = ""
        for character in root.lastPathComponent.lowercased().unicodeScalars {
            let isIdentifier = ("a"..."z").contains(character) || ("0"..."9").contains(character) || character == "_"
            name.unicodeScalars.append(isIdentifier ? character : "_")
        }
        if let first = name.unicodeScalars.first, ("0"..."9").contains(first) { name = "_" + name }
        return name
    }
}

/// What one compiler run printed.
struct CompilerResult: Sendable {
    var status: Int32
    var output: String

    /// The error lines (`file:line:column: error: message`), warnings and notes left out.
    var errorMessages: [String] {
        output.split(separator: "\n").map(String.init).filter { $0.contains(": error: ") }
    }
}

enum Compiler {
    /// Type-checks `file` against the modules in `modules`, with the module maps of the package's C
    /// targets so that modules importing them load.
    static func typecheck(
        _ file: URL, modules: URL, packageRoot: URL, packageAccess: Bool, includes: [URL] = []
    ) async throws -> CompilerResult {
        let binPath = modules.deletingLastPathComponent()
        var arguments = [
            "swiftc", "-typecheck", "-swift-version", "6", "-parse-as-library", "-I", modules.path,
            "-module-cache-path", binPath.appendingPathComponent("ModuleCache").path,
        ]
        #if canImport(Darwin)
            arguments = ["xcrun"] + arguments
        #endif
        if packageAccess {
            arguments += ["-package-name", SnippetEnvironment.packageName(of: packageRoot)]
        }
        for include in includes { arguments += ["-I", include.path] }
        let files = FileManager.default
        let sources = packageRoot.appendingPathComponent("Sources")
        for target in (try? files.contentsOfDirectory(atPath: sources.path)) ?? [] {
            let directory = sources.appendingPathComponent(target)
            let include = directory.appendingPathComponent("include")
            if files.fileExists(atPath: include.path) { arguments += ["-Xcc", "-I", "-Xcc", include.path] }
            let systemMap = directory.appendingPathComponent("module.modulemap")
            if files.fileExists(atPath: systemMap.path) {
                arguments += ["-Xcc", "-fmodule-map-file=" + systemMap.path]
            }
            let generatedMap = binPath.appendingPathComponent("\(target).build/module.modulemap")
            if files.fileExists(atPath: generatedMap.path) {
                arguments += ["-Xcc", "-fmodule-map-file=" + generatedMap.path]
            }
        }
        arguments.append(file.path)
        return await run(arguments, in: packageRoot)
    }

    /// Runs a command found on `PATH` in `directory`, with standard output and error together.
    /// Waits without blocking: a compiler takes seconds, and a blocked cooperative thread (there
    /// are as many as cores) stalls every other test of the process meanwhile.
    static func run(_ arguments: [String], in directory: URL) async -> CompilerResult {
        guard let command = arguments.first else { return CompilerResult(status: -1, output: "no command") }
        do {
            let result = try await ChildProcess(
                executable: command, arguments: Array(arguments.dropFirst()), workingDirectory: directory.path,
                mergingStandardError: true
            ).finish(timeout: .seconds(900))
            return CompilerResult(status: result.status, output: result.standardOutput)
        } catch {
            return CompilerResult(status: -1, output: "could not run \(arguments.joined(separator: " ")): \(error)")
        }
    }
}
