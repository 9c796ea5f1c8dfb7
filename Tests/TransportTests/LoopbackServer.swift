import DataSyncTestSupport
import Foundation
import Testing
import Transport

/// The test-support server the conformance suite uses, under the name these tests have always used.
typealias LoopbackServer = HTTPTestServer

/// Runs `body` and returns the transport error it throws, recording an issue when it does not.
func transportError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> HTTPResponse
) async -> TransportError? {
    do {
        let response = try await body()
        Issue.record("expected an error, got status \(response.status)", sourceLocation: sourceLocation)
    } catch let error as TransportError {
        return error
    } catch {
        Issue.record("expected a TransportError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
