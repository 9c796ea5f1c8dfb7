import DataSyncModels
import Testing

/// Compiles with `import DataSyncModels` alone: `PubNubError`, which this module owned before the
/// base module took it, is still reachable by name and through `error.pubNubError`.
@Suite("DataSyncModels alone")
struct ModelsSingleImportTests {
    @Test("a decoder's error is a PubNubError with only DataSyncModels imported")
    func errorReachableWithOneImport() throws {
        let error: any Error = PubNubError(reason: .malformedResponse, message: "not a user")
        let pubNubError = try #require(error.pubNubError)
        #expect(pubNubError.reason == PubNubError.Reason.malformedResponse)
        #expect(pubNubError.message == "not a user")
    }
}
