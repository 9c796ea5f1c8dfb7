import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase
import Testing

/// Credentials whose query names are not lowercase (`AUTH`, `Signature`): the service reads only
/// the lowercase names, but a client that sends another case still sent a secret, and neither
/// the in-memory request log nor the standard output line may keep it.
@Suite("Request-log redaction ignores the letter case of credential names")
struct RedactionCaseTests {
    static let targets = [
        "/time/0?AUTH=SECRET-A&Signature=SECRET-B",
        "/time/0?uuid=me&Auth=SECRET-C&sIgNaTuRe=SECRET-D",
        "/time/0?%41UTH=SECRET-E",
        "/v1/datasync/subkeys/demo/users?SIGNATURE=SECRET-F&limit=1",
    ]

    @Test("mixed-case auth and signature values never appear in /_emulator/v1/requests nor on stdout")
    func mixedCaseNamesAreRedacted() async throws {
        let lines = Locked<[String]>([])
        let emulator = try Emulator()
        let url = try await emulator.start(requestLog: { line in lines.withLock { $0.append(line) } })
        let port = try #require(url.port.flatMap { UInt16(exactly: $0) })
        let reply = try await emulator.run { _ in
            try await onThread {
                let connection = try RawSocket(port: port)
                defer { connection.close() }
                for target in Self.targets { _ = try connection.request("GET", target) }
                return try connection.request("GET", "/_emulator/v1/requests")
            }
        }
        #expect(reply.status == 200)
        let json = try JSONValue(parsing: reply.body)
        let logged = try #require(json["requests"]?.arrayValue).compactMap { $0["target"]?.stringValue }
        #expect(
            logged == [
                "/time/0?AUTH=REDACTED&Signature=REDACTED", "/time/0?uuid=me&Auth=REDACTED&sIgNaTuRe=REDACTED",
                "/time/0?%41UTH=REDACTED", "/v1/datasync/subkeys/demo/users?SIGNATURE=REDACTED&limit=1",
            ])
        #expect(!reply.text.contains("SECRET"), "request log leaked: \(reply.text)")
        let stdout = lines.withLock { $0 }.filter { !$0.contains("/_emulator/") }
        #expect(stdout.count == Self.targets.count)
        for line in stdout { #expect(!line.contains("SECRET"), "stdout leaked: \(line)") }
        #expect(stdout.first?.hasPrefix("GET /time/0?AUTH=REDACTED&Signature=REDACTED -> 200") == true)
    }

    @Test(
        "a secret is hidden next to a broken escape; a name that merely contains auth is kept",
        arguments: [
            ("/time/0?x=%ZZ&Auth=SECRET", "/time/0?x=%ZZ&Auth=REDACTED"),
            ("/time/0?authority=x&AUTH", "/time/0?authority=x&AUTH"),
            ("/v3/pam/demo/grant/TOKEN?uuid=me", "/v3/pam/demo/grant/REDACTED?uuid=me"),
        ])
    func edges(target: String, expected: String) {
        #expect(RequestLogRedaction.redact(target: target) == expected)
    }
}
