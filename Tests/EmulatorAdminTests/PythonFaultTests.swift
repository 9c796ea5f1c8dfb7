import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// PubNub's Python SDK against faults queued over `/_emulator/v1/faults`. Runs when
/// `PUBNUB_PYTHON` is set and then fails on any disagreement.
@Suite("Faults over HTTP meet PubNub's Python SDK", .enabled(if: PythonInterop.python != nil), .timeLimit(.minutes(1)))
struct PythonFaultTests {
    @Test("publish 500, here-now 503 and a reset time call fail once, then the SDK's next call succeeds")
    func pythonMeetsFaults() async throws {
        let python = try #require(PythonInterop.python)
        try await withServed { served in
            let child = try ChildProcess(
                executable: python,
                arguments: [
                    // The script queues faults over HTTP itself, with no Swift on the client side.
                    PythonInterop.script("faults_interop.py").path, "http://127.0.0.1:\(served.port)",
                ])
            let result = try await child.finish(timeout: .seconds(50))
            let report = "exit \(result.status)\n\(result.standardOutput)\n\(result.standardError)"
            #expect(result.status == 0, "\(report)")
            let lines = result.standardOutput.split(separator: "\n").compactMap {
                try? JSONValue(parsing: Array($0.utf8))
            }
            let cases = lines.filter { $0["case"] != nil }
            #expect(cases.map { $0["case"] } == ["publish", "here_now", "time"], "\(report)")
            #expect(cases.map { $0["first"]?["error"] } == [true, true, true], "\(report)")
            #expect(cases.map { $0["first"]?["status"] } == [500, 503, .null], "\(report)")
            #expect(cases.map { $0["second"]?["error"] } == [false, false, false], "\(report)")
            #expect(lines.last == ["remaining": []], "\(report)")
            #expect(served.emulator.faultEntries.isEmpty)
        }
    }
}
