import DataSyncTestSupport
import Foundation
import Testing
@testable import Transport

/// The curl backend's task executor (`CurlHTTPClient.taskExecutor`): a task that prefers it runs
/// on the client's transfer thread, and everything the transport promises still holds there.
@Suite("Curl task executor", .timeLimit(.minutes(2)))
struct CurlTaskExecutorTests {
    /// A curl client whose every `send` runs in a task preferring that client's executor, so the
    /// conformance cases exercise submission, answers, cancellation and timeouts on its thread.
    struct OnOwnExecutor: HTTPClient {
        let client: CurlHTTPClient

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let client = self.client
            return try await withTaskExecutorPreference(client.taskExecutor) {
                let response = try await client.send(request)
                // Still inside the preference: this line runs on the client's thread.
                guard client.isOnTransferThread else {
                    throw TransportError(code: .other, message: "the answer resumed the task off the client's thread")
                }
                return response
            }
        }
    }

    @Test(
        "every conformance case passes when requests are sent from the client's executor",
        arguments: HTTPClientConformance.cases)
    func conformanceOnTheExecutor(check: HTTPClientConformance.Case) async throws {
        try await HTTPClientConformance.run(check) { configuration in
            OnOwnExecutor(client: try CurlHTTPClient(configuration: configuration))
        }
    }

    @Test("a task preferring the executor resumes on the client's thread after every answer")
    func resumesOnTheClientsThread() async throws {
        let client = try CurlHTTPClient()
        try await HTTPTestServer.with { server in
            let seen = try await withTaskExecutorPreference(client.taskExecutor) {
                var seen: [Bool] = [client.isOnTransferThread]
                for index in 0..<20 {
                    let response = try await client.send(
                        server.request("/echo", query: [.init(name: "n", value: "\(index)")]))
                    #expect(response.status == 200)
                    seen.append(client.isOnTransferThread)
                }
                return seen
            }
            #expect(seen.count == 21)
            #expect(seen.allSatisfy { $0 }, "off the client's thread at steps \(seen.indices.filter { !seen[$0] })")
        }
    }

    @Test("tasks preferring the executor make concurrent requests, each answered once")
    func concurrentTasks() async throws {
        let client = try CurlHTTPClient()
        try await HTTPTestServer.with { server in
            let answers = try await withThrowingTaskGroup(of: [String].self) { group in
                for task in 0..<8 {
                    group.addTask(executorPreference: client.taskExecutor) {
                        var seen: [String] = []
                        for call in 0..<25 {
                            let tag = "\(task)-\(call)"
                            let response = try await client.send(
                                server.request("/echo", query: [.init(name: "tag", value: tag)]))
                            let echo = String(decoding: response.body, as: UTF8.self)
                            if response.status == 200, echo.contains("tag=\(tag)\"") { seen.append(tag) }
                        }
                        return seen
                    }
                }
                var all: [String] = []
                for try await seen in group { all += seen }
                return all
            }
            #expect(answers.count == 200)
            #expect(Set(answers).count == 200)
        }
    }

    @Test("cancelling a task that waits on the executor ends its held request with .cancelled")
    func cancellation() async throws {
        let client = try CurlHTTPClient()
        try await HTTPTestServer.with { server in
            let task = Task {
                try await withTaskExecutorPreference(client.taskExecutor) {
                    try await client.send(server.request("/hold"))
                }
            }
            // Cancel once the server holds the request, not before.
            let held = await server.waitForRequest(pathPrefix: "/hold", timeout: .seconds(60))
            #expect(held)
            task.cancel()
            let error = await transportError { try await task.value }
            #expect(error?.code == .cancelled)
            // The executor still serves the client afterwards.
            let after = try await withTaskExecutorPreference(client.taskExecutor) {
                try await client.send(server.request("/status/204"))
            }
            #expect(after.status == 204)
        }
    }

    @Test("jobs that reach the executor after its client is released still run, elsewhere")
    func afterTheClientIsReleased() async throws {
        // Only the executor outlives the client: releasing the client shuts its thread down.
        let executor = try #require(try CurlHTTPClient().taskExecutor)
        let engine = try #require(executor as? CurlEngine)
        let steps = await withTaskExecutorPreference(executor) {
            var steps: [Bool] = []
            for _ in 0..<3 {
                await Task.yield()
                steps.append(engine.isEngineThread)
            }
            return steps
        }
        // Every resume ran (a job left in a stopped engine's queue would hang here until the
        // time limit), none on the engine's thread, which is gone.
        #expect(steps == [false, false, false])
    }
}
