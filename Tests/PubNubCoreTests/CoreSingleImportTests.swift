import PubNubCore
import Testing

/// Compiles with `import PubNubCore` alone: `Timetoken` and `PubNubError`, which live in the base
/// module, are reachable by name as before.
@Suite("PubNubCore alone")
struct CoreSingleImportTests {
    @Test("Timetoken and PubNubError are named with only PubNubCore imported")
    func baseTypesReachableWithOneImport() {
        let timetoken: Timetoken = 17_800_000_000_000_000
        let error = PubNubError(reason: .requestTimedOut, message: "slow", statusCode: nil)
        #expect(timetoken / 10_000_000 == 1_780_000_000)
        #expect(error.reason == .requestTimedOut)
    }
}
