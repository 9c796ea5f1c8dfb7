import Foundation
import JSONCore
import Testing

/// The transcribed vectors of ``MessagingVectorTests`` against the spec's `pubsub-vectors.json`,
/// which this test target carries as a resource (`Resources/`): a transcription that drifts from
/// the file (a wrong method, path, status, answer, or a parameter the file records) fails here.
@Suite("pubsub-vectors.json transcription")
struct MessagingVectorFileTests {
    static func fileVectors() throws -> [JSONValue] {
        let url = try #require(
            Bundle.module.url(forResource: "pubsub-vectors", withExtension: "json"),
            "pubsub-vectors.json is not among the test resources")
        return try #require(try JSONValue(parsing: Data(contentsOf: url)).arrayValue)
    }

    @Test("every transcribed vector has the file's method, path, status, answer and operation query")
    func transcriptionMatchesFile() throws {
        let file = try Self.fileVectors()
        for vector in MessagingVectorTests.vectors {
            let entry = try #require(vector.index < file.count ? file[vector.index] : nil, "no vector \(vector.index)")
            // The transcription may add a remark to the feature's name ("publish.post.deflate (as gzip)").
            let feature = entry["feature"]?.stringValue ?? ""
            #expect(!feature.isEmpty && vector.feature.hasPrefix(feature), "vector \(vector.index)")
            #expect(entry["request_method"]?.stringValue == vector.method, "vector \(vector.index)")
            // The file writes some paths and values as placeholders (`<payload over 64 bytes>`).
            if let path = vector.path, let recorded = entry["request_path"]?.stringValue, !recorded.contains("<") {
                #expect(recorded == path, "vector \(vector.index)")
            }
            #expect(entry["response_status"]?.int64Value == Int64(vector.status), "vector \(vector.index)")
            if let text = entry["response_body"]?.stringValue {
                #expect(text == vector.response, "vector \(vector.index)")
            } else {
                let answer = try JSONValue(parsing: Array(vector.response.utf8))
                #expect(entry["response_body"] == answer, "vector \(vector.index)")
            }
            let query = entry["request_query"]?.objectValue ?? [:]
            // Parameters the file records must be sent as recorded; the transcription may pin more
            // (what this SDK sends where the recording SDK sent nothing).
            for (name, value) in vector.query {
                guard let recorded = query[name]?.stringValue, !recorded.hasPrefix("<") else { continue }
                #expect(recorded == value, "vector \(vector.index), query \(name)")
            }
        }
    }
}
