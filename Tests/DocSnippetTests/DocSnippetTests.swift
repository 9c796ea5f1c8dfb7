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
    }

    @Test func everySwiftSnippetTypeChecks() async throws {
        let package = SnippetEnvironment.packageRoot
        let modules = try #require(
            await SnippetEnvironment.modulesDirectory(),
            "no built modules found next to the test bundle or under `swift build --show-bin-path`")
        let documents = SnippetEnvironment.documents(in: package)
        #expect(!documents.isEmpty)

        var jobs: [Job] = []
        var snippetCount = 0
        var skipped: [SkippedSnippet] = []
        for document in documents {
            let text = try String(contentsOf: package.appendingPathComponent(document), encoding: .utf8)
            let found = SnippetExtractor.extract(text, document: document)
            skipped += found.skipped
            guard !found.snippets.isEmpty else { continue }
            snippetCount += found.snippets.count
            let source = SnippetFile.source(for: found.snippets, document: document)
            jobs.append(
                Job(document: document, source: source, packageAccess: SnippetExtractor.wantsPackageAccess(text)))
        }

        let workDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("DocSnippetTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workDirectory) }

        // Two compilers at a time: enough to overlap module loading, gentle on a shared machine.
        let results = try await withThrowingTaskGroup(of: (String, CompilerResult).self) { group in
            var pending = jobs[...]
            var results: [(String, CompilerResult)] = []
            func startNext() throws {
                guard let job = pending.popFirst() else { return }
                let file = workDirectory.appendingPathComponent(
                    job.document.replacingOccurrences(of: "/", with: "_") + ".swift")
                try job.source.write(to: file, atomically: true, encoding: .utf8)
                group.addTask {
                    (
                        job.document,
                        try await Compiler.typecheck(
                            file, modules: modules, packageRoot: package,
                            packageAccess: job.packageAccess)
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
