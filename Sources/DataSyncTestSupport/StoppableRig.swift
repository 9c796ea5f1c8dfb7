package import DataSyncEmulator

/// A started test fixture that holds something until it is stopped: an emulator on a port, a
/// browser, a child process.
///
/// Conform a rig to it to get ``run(isolation:_:)``, which stops the rig however the test body
/// ends. A rig left running after a failed expectation keeps its port and threads, and the next
/// test on a two-core machine pays for them. Package access: a test helper of this repository.
package protocol StoppableRig {
    /// Releases what the rig holds. Called once, after the test body.
    func stop() async
}

extension StoppableRig {
    /// Runs `body` with this rig, then stops the rig, also when `body` throws (the error is
    /// rethrown after the stop).
    package func run<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (Self) async throws -> Result
    ) async throws -> Result {
        try await runThenStop({ try await body(self) }, stop: { await stop() })
    }
}

/// Runs `body`, then `stop`, also when `body` throws (the error is rethrown after `stop`): for a
/// server or a pair of them that is not a ``StoppableRig``.
package func runThenStop<Result>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result, stop: () async -> Void
) async throws -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        await stop()
        throw error
    }
    await stop()
    return result
}

extension Emulator: StoppableRig {}

extension KeysetRig: StoppableRig {}
