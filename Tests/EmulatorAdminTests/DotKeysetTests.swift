import DataSyncEmulator
import Foundation
import JSONCore
import Testing

/// Issue 35, item 12: `.` and `..` never name a keyset, on any route that creates one, and never
/// pass as an admin path segment (a browser would have resolved them: `keysets/../reset` reaches
/// `/_emulator/v1/reset`, which resets every keyset).
@Suite("Dot keyset names")
struct DotKeysetTests {
    static let seed: JSONValue = [
        "keysets": ["demo": ["users": [["id": "alice"]]], "other": ["users": [["id": "bob"]]]]
    ]

    private func send(_ emulator: Emulator, _ method: String, _ target: String, body: JSONValue? = nil) async throws
        -> (status: Int, json: JSONValue?)
    {
        var headers: [(name: String, value: String)] = []
        var bytes: [UInt8] = []
        if let body {
            headers.append((name: "Content-Type", value: "application/vnd.pubnub.objects.user+json;version=1"))
            bytes = try body.jsonBytes()
        }
        let response = await emulator.respond(
            to: ServerRequest(method: method, target: target, headers: headers, body: bytes))
        return (response.status, try? JSONValue(parsing: response.body))
    }

    private func keysetNames(_ emulator: Emulator) async throws -> [String] {
        let listed = try await send(emulator, "GET", "/_emulator/v1/keysets")
        return listed.json?["keysets"]?.arrayValue?.compactMap { $0["subscribeKey"]?.stringValue } ?? []
    }

    @Test(
        "a DataSync create, or any request, on subscribe key `..` or `.` is a 400 and creates no keyset",
        arguments: [
            "%2E%2E", "%2e%2e", "..", "%2E", ".",
        ])
    func dataSyncRefusesDotKeysets(raw: String) async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(seed: Self.seed, startTime: adminStart))
        let created = try await send(
            emulator, "POST", "/v1/datasync/subkeys/\(raw)/users", body: ["data": ["id": "x", "entityClassVersion": 1]])
        #expect(created.status == 400)
        let message = created.json?["errors"]?[0]?["message"]?.stringValue ?? ""
        #expect(message.contains("a subscribe key cannot be"), "\(message)")
        #expect(try await send(emulator, "GET", "/v1/datasync/subkeys/\(raw)/users").status == 400)
        #expect(try await keysetNames(emulator).sorted() == ["demo", "other"])
    }

    @Test(
        "admin /_emulator/v1/keysets/%2E%2E/reset is refused and resets nothing",
        arguments: [
            "/_emulator/v1/keysets/%2E%2E/reset", "/_emulator/v1/keysets/../reset", "/_emulator/v1/keysets/%2e/reset",
            "/_emulator/v1/keysets/%2E%2E/presence", "/_emulator/v1/%2E%2E/v1/reset",
        ])
    func adminRefusesDotSegments(target: String) async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(seed: Self.seed, startTime: adminStart))
        let method = target.hasSuffix("reset") ? "POST" : "GET"
        let reply = try await send(emulator, method, target)
        #expect(reply.status == 400)
        #expect(reply.json?["error"]?["message"]?.stringValue?.contains("cannot be") == true, "\(reply)")
        #expect(try await send(emulator, "GET", "/v1/datasync/subkeys/demo/users/alice").status == 200)
        #expect(try await send(emulator, "GET", "/v1/datasync/subkeys/other/users/bob").status == 200)
    }

    @Test("a seed, an import or a class document naming keyset `..` is refused")
    func documentsRefuseDotKeysets() async throws {
        let seedError = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(seed: ["keysets": ["..": ["users": [["id": "a"]]]]]))
        }
        #expect(seedError?.code == .invalidSeed)
        #expect(seedError?.message.contains("a subscribe key cannot be \"..\"") == true)
        let emulator = try Emulator(configuration: EmulatorConfiguration(seed: Self.seed, startTime: adminStart))
        let imported = try await send(
            emulator, "POST", "/_emulator/v1/import", body: ["keysets": [".": ["users": [["id": "a"]]]]])
        #expect(imported.status == 400)
        let classError = await #expect(throws: EmulatorError.self) {
            try await emulator.defineClasses(["entityClasses": []], subscribeKey: "..")
        }
        #expect(classError?.code == .invalidClasses)
        #expect(try await keysetNames(emulator).sorted() == ["demo", "other"])
    }

    @Test("a configured pub/sub keyset named `..` is refused, in options and in process")
    func configurationRefusesDotKeysets() {
        #expect(throws: EmulatorOptionsError.self) { try EmulatorOptions.parse(["--subscribe-key", ".."]) }
        #expect(throws: EmulatorOptionsError.self) { try EmulatorOptions.parse(["--keyset", "p:.:s"]) }
        let error = #expect(throws: EmulatorError.self) {
            _ = try Emulator(
                configuration: EmulatorConfiguration(
                    pubSub: PubSubConfiguration(keysets: [
                        PubSubKeyset(publishKey: "p", subscribeKey: "..", secretKey: "s")
                    ])))
        }
        #expect(error?.code == .invalidConfiguration)
    }
}
