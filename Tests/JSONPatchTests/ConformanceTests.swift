import Foundation
import JSONCore
import JSONPatch
import Testing

/// The public RFC 6902 suite (json-patch/json-patch-tests), read from outside the repository.
enum ConformanceSuite {
    static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["JSONPATCH_CONFORMANCE_DIR"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        // Tests/JSONPatchTests/ConformanceTests.swift -> the package root.
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent("../shared/conformance/json-patch").standardizedFileURL
    }

    static let files = ["tests.json", "spec_tests.json"]

    static var isPresent: Bool {
        files.allSatisfy { FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) }
    }

    /// In CI a missing suite must fail, so the test runs there whatever happens; elsewhere it is skipped.
    static var shouldRun: Bool {
        isPresent || ProcessInfo.processInfo.environment["CI"] != nil
    }
}

@Suite struct ConformanceTests {
    @Test(
        "every enabled record of the RFC 6902 conformance suite passes",
        .enabled(if: ConformanceSuite.shouldRun, "conformance suite not found; set JSONPATCH_CONFORMANCE_DIR"))
    func conformanceSuite() throws {
        try #require(
            ConformanceSuite.isPresent, "JSON Patch conformance suite missing at \(ConformanceSuite.directory.path)")
        var checked = 0
        for file in ConformanceSuite.files {
            let data = try Data(contentsOf: ConformanceSuite.directory.appendingPathComponent(file))
            let records = try #require(try JSONValue(parsing: data).arrayValue)
            for (index, record) in records.enumerated() where record["disabled"]?.boolValue != true {
                check(record, label: "\(file)[\(index)] \(record["comment"]?.stringValue ?? "")")
                checked += 1
            }
        }
        #expect(checked > 90)
    }

    private func check(_ record: JSONValue, label: String) {
        let document = record["doc"] ?? .null
        let mustFail = record["error"] != nil
        let operations: [PatchOperation]
        do {
            operations = try (record["patch"] ?? .null).decode([PatchOperation].self)
        } catch {
            #expect(mustFail, "\(label): patch did not decode: \(error)")
            return
        }
        do {
            let result = try Patch.apply(operations, to: document)
            #expect(!mustFail, "\(label): patch should fail but gave \(result)")
            if let expected = record["expected"] {
                #expect(result == expected, "\(label): got \(result), expected \(expected)")
            }
        } catch {
            #expect(mustFail, "\(label): unexpected \(error)")
            var mutable = document
            #expect(throws: PatchError.self) { try mutable.apply(operations) }
            #expect(mutable == document, "\(label): failed patch changed the document")
        }
    }
}
