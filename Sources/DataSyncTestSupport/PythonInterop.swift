package import Foundation
package import JSONCore

/// PubNub's official Python SDK as a test peer: the interpreter `PUBNUB_PYTHON` names and the
/// driver scripts in `Tests/Interop`. Package access: a test helper of this repository.
package enum PythonInterop {
    /// The interpreter `PUBNUB_PYTHON` names (one with `pubnub` installed), or nil when it is unset
    /// or empty: the interop suites are disabled then, and CI always sets it.
    package static let python: String? = ProcessInfo.processInfo.environment["PUBNUB_PYTHON"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// The script `name` in this package's `Tests/Interop` folder.
    package static func script(_ name: String) -> URL {
        // This file is Sources/DataSyncTestSupport/PythonInterop.swift: three levels below the root.
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests").appendingPathComponent("Interop").appendingPathComponent(name)
    }

    /// Runs the script `name` with `arguments` and returns the last line it printed that is a JSON
    /// object (the driver scripts end with their report on one line).
    ///
    /// - Throws: ``ChildProcessFailure`` when `PUBNUB_PYTHON` is unset, the script exits with a
    ///   status other than 0 or prints no JSON object (the error holds what it printed), or does
    ///   not end within `timeout`.
    package static func report(
        of name: String, _ arguments: [String], timeout: Duration = .seconds(60)
    ) async throws -> JSONValue {
        guard let python else { throw ChildProcessFailure("PUBNUB_PYTHON is not set") }
        let result = try await ChildProcess(executable: python, arguments: [script(name).path] + arguments)
            .finish(timeout: timeout)
        guard result.status == 0 else { throw ChildProcessFailure("\(name) failed: \(result)") }
        guard let line = result.standardOutput.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
            throw ChildProcessFailure("\(name) printed no JSON report: \(result)")
        }
        return try JSONValue(parsing: Array(line.utf8))
    }
}
