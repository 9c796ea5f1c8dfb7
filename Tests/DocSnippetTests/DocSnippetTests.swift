import Foundation
import Testing

/// Every ```swift block of the documentation of JSONCore, JSONPatch, Transport, Auth,
/// DataSyncModels, PubNubCore, DataSync, PubNubCrypto, EmulatorHTTP, DataSyncTestSupport and
/// DataSyncLive must
/// type-check against the modules this build made.
///
/// Each document becomes one generated file: every block is the body of a function of its own
/// (after a prelude of placeholder values such as `tokenFromYourServer`), or sits at file scope
/// when it declares an extension or a protocol. `#sourceLocation` points every line back at the
/// document, so a failure names the Markdown file and line. One `swiftc -typecheck` per document.
@Suite struct DocSnippetTests {
    /// One generated file to type-check.
    struct Job: Sendable {
        var document: String
        var source: String
        var packageAccess: Bool
        /// Directories with stand-in modules (`-I`), for a snippet marked `stand-in`.
        var includes: [URL] = []
        /// Names the generated file apart from the document's other jobs.
        var suffix = ""
    }

    @Test func everySwiftSnippetTypeChecks() async throws {
        let package = SnippetEnvironment.packageRoot
        let modules = try #require(
            await SnippetEnvironment.modulesDirectory(),
            "no built modules found next to the test bundle or under `swift build --show-bin-path`")
        let documents = SnippetEnvironment.documents(in: package)
        #expect(!documents.isEmpty)

        let workDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("DocSnippetTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workDirectory) }

        var jobs: [Job] = []
        var snippetCount = 0
        var skipped: [SkippedSnippet] = []
        var standInDirectories: [String: URL] = [:]
        for document in documents {
            let text = try String(contentsOf: package.appendingPathComponent(document), encoding: .utf8)
            let found = SnippetExtractor.extract(text, document: document)
            skipped += found.skipped
            let plain = found.snippets.filter { $0.standIn == nil }
            if !plain.isEmpty {
                snippetCount += plain.count
                let source = SnippetFile.source(for: plain, document: document)
                jobs.append(
                    Job(document: document, source: source, packageAccess: SnippetExtractor.wantsPackageAccess(text)))
            }
            for snippet in found.snippets {
                guard let module = snippet.standIn else { continue }
                guard StandInModules.isAvailable(module) else {
                    skipped.append(
                        SkippedSnippet(document: document, line: snippet.line, reason: "no stand-in for \(module)"))
                    continue
                }
                var includes: [URL] = []
                if let standIn = StandInModules.source(for: module) {
                    if standInDirectories[module] == nil {
                        standInDirectories[module] = try await Self.buildStandIn(
                            module, source: standIn, in: workDirectory, packageRoot: package)
                    }
                    includes = standInDirectories[module].map { [$0] } ?? []
                }
                snippetCount += 1
                jobs.append(
                    Job(
                        document: document, source: SnippetFile.standAlone(snippet), packageAccess: false,
                        includes: includes, suffix: "-\(snippet.line)"))
            }
        }

        // Two compilers at a time: enough to overlap module loading, gentle on a shared machine.
        let results = try await withThrowingTaskGroup(of: (String, CompilerResult).self) { group in
            var pending = jobs[...]
            var results: [(String, CompilerResult)] = []
            func startNext() throws {
                guard let job = pending.popFirst() else { return }
                let file = workDirectory.appendingPathComponent(
                    job.document.replacingOccurrences(of: "/", with: "_") + job.suffix + ".swift")
                try job.source.write(to: file, atomically: true, encoding: .utf8)
                group.addTask {
                    (
                        job.document,
                        try await Compiler.typecheck(
                            file, modules: modules, packageRoot: package,
                            packageAccess: job.packageAccess, includes: job.includes)
                    )
                }
            }
            try startNext()
            try startNext()
            while let result = try await group.next() {
                results.append(result)
                try startNext()
            }
            return results
        }

        for (document, result) in results.sorted(by: { $0.0 < $1.0 }) where result.status != 0 {
            let errors = result.errorMessages
            if errors.isEmpty {
                Issue.record("\(document): swiftc failed (status \(result.status)):\n\(result.output)")
            }
            for error in errors { Issue.record("\(error)") }
        }

        var summary = "DocSnippetTests: \(snippetCount) snippets in \(jobs.count) documents type-checked"
        summary += skipped.isEmpty ? ", none skipped" : ", \(skipped.count) skipped:"
        for skip in skipped { summary += "\n  \(skip.document):\(skip.line): \(skip.reason)" }
        print(summary)
        #expect(snippetCount > 0)
    }

    /// Compiles a stand-in module's interface into a directory of its own and returns it.
    static func buildStandIn(_ module: String, source: String, in work: URL, packageRoot: URL) async throws -> URL {
        let directory = work.appendingPathComponent("stand-ins/\(module)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("\(module).swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        var arguments = [
            "swiftc", "-emit-module", "-parse-as-library", "-swift-version", "6", "-module-name", module,
            "-emit-module-path", directory.appendingPathComponent("\(module).swiftmodule").path, file.path,
        ]
        #if canImport(Darwin)
            arguments = ["xcrun"] + arguments
        #endif
        let result = await Compiler.run(arguments, in: packageRoot)
        try #require(result.status == 0, "the stand-in for \(module) does not compile:\n\(result.output)")
        return directory
    }

    @Test func standInMarkerNamesTheModule() {
        let text = """
            <!-- snippet: stand-in Logging (swift-log is an external package) -->
            ```swift
            import Logging
            ```
            """
        let found = SnippetExtractor.extract(text, document: "Doc.md")
        #expect(found.snippets == [Snippet(document: "Doc.md", line: 3, lines: ["import Logging"], standIn: "Logging")])
        #expect(found.skipped.isEmpty)
    }

    @Test func extractorFindsSwiftBlocksAndHonoursSkips() {
        let text = """
            # Title
            ```swift
            let a = 1
            ```
            ```sh
            swift build
            ```
            <!-- snippet: skip (needs a real server) -->
            ```swift
            let b = 2
            ```
            - A list item:
              ```swift
              let c = 3
              ```
            """
        let found = SnippetExtractor.extract(text, document: "Doc.md")
        #expect(
            found.snippets == [
                Snippet(document: "Doc.md", line: 3, lines: ["let a = 1"]),
                Snippet(document: "Doc.md", line: 14, lines: ["let c = 3"]),
            ])
        #expect(found.skipped == [SkippedSnippet(document: "Doc.md", line: 10, reason: "needs a real server")])
    }

    @Test func compilerErrorsAreReportedWithTheirDocumentLine() {
        let output = """
            Documentation/Transport.md:42:9: error: cannot find 'clinet' in scope
            40 |
            Documentation/Transport.md:43:1: warning: variable 'x' was never used
            """
        let result = CompilerResult(status: 1, output: output)
        #expect(result.errorMessages == ["Documentation/Transport.md:42:9: error: cannot find 'clinet' in scope"])
    }
}
