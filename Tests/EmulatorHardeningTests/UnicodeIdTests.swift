import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// Issue 18, point 7: ids are compared by Unicode scalars (canonically equivalent ids are
/// distinct objects) and their length is counted in Unicode scalars. Over real HTTP.
@Suite("Unicode ids over HTTP", .serialized)
struct UnicodeIdTests {
    /// ANGSTROM SIGN and LATIN CAPITAL LETTER A WITH RING ABOVE: canonically equivalent.
    static let angstrom = "\u{212B}"
    static let aRing = "\u{00C5}"
    static let cafeNFC = "caf\u{E9}"
    static let cafeNFD = "cafe\u{301}"

    /// Starts an emulator, runs `body` with a connection to it on a thread of its own, stops it.
    private func withEmulator<T: Sendable>(_ body: @escaping @Sendable (RawSocket) throws -> T) async throws -> T {
        let emulator = try Emulator()
        let port = try #require(try await emulator.start().port.map(UInt16.init))
        return try await emulator.run { _ in try await onThread { try body(try RawSocket(port: port)) } }
    }

    private static func create(
        _ connection: RawSocket, _ collection: String, _ data: JSONValue, mediaType: String
    ) throws -> RawHTTPResponse {
        var fields = data.objectValue ?? [:]
        fields[collection == "memberships" ? "relationshipClassVersion" : "entityClassVersion"] = 1
        return try connection.request(
            "POST", dataSyncPath(collection), headers: [("Content-Type", mediaType)],
            body: try dataBody(.object(fields)))
    }

    private static func id(_ response: RawHTTPResponse) -> String? {
        (try? JSONValue(parsing: response.body))?["data"]?["id"]?.stringValue
    }

    @Test("U+212B and U+00C5, NFC and NFD café: four users, each read, listed, patched and removed on its own")
    func canonicallyEquivalentIdsAreDistinct() async throws {
        let ids = [Self.angstrom, Self.aRing, Self.cafeNFC, Self.cafeNFD]
        let outcome = try await withEmulator { connection in
            var statuses: [Int] = []
            for (index, id) in ids.enumerated() {
                let created = try Self.create(
                    connection, "users", ["id": .string(id), "payload": ["n": .int(Int64(index))]],
                    mediaType: userMediaType)
                statuses.append(created.status)
            }
            var read: [[UInt32]] = []
            var payloads: [Int64?] = []
            for id in ids {
                let response = try connection.request("GET", dataSyncPath("users/\(percentEncoded(id))"))
                read.append(scalars(Self.id(response)))
                payloads.append((try? JSONValue(parsing: response.body))?["data"]?["payload"]?["n"]?.int64Value)
            }
            let listed = try connection.request("GET", dataSyncPath("users?limit=100"))
            let listedIds =
                (try JSONValue(parsing: listed.body))["data"]?.arrayValue?.map { scalars($0["id"]?.stringValue) } ?? []
            let patched = try connection.request(
                "PATCH", dataSyncPath("users/\(percentEncoded(Self.cafeNFD))"),
                headers: [("Content-Type", "application/json-patch+json")],
                body: Array(#"[{"op":"replace","path":"/payload/n","value":42}]"#.utf8))
            let nfcAfterPatch = try connection.request("GET", dataSyncPath("users/\(percentEncoded(Self.cafeNFC))"))
            let removed = try connection.request("DELETE", dataSyncPath("users/\(percentEncoded(Self.angstrom))"))
            let aRingAfterRemove = try connection.request("GET", dataSyncPath("users/\(percentEncoded(Self.aRing))"))
            let angstromAfterRemove = try connection.request(
                "GET", dataSyncPath("users/\(percentEncoded(Self.angstrom))"))
            return (
                statuses, read, payloads, listedIds, patched.status,
                (try? JSONValue(parsing: nfcAfterPatch.body))?["data"]?["payload"]?["n"]?.int64Value, removed.status,
                aRingAfterRemove.status, angstromAfterRemove.status
            )
        }
        #expect(outcome.0 == [201, 201, 201, 201])
        #expect(outcome.1 == ids.map { scalars($0) })
        #expect(outcome.2 == [0, 1, 2, 3])
        #expect(Set(outcome.3) == Set(ids.map { scalars($0) }))
        #expect(outcome.3.count == 4)
        #expect(outcome.4 == 200)
        #expect(outcome.5 == 2)  // the NFC user kept its own payload
        #expect(outcome.6 == 200)
        #expect(outcome.7 == 200)
        #expect(outcome.8 == 404)
    }

    @Test("a user in the NFC and the NFD channel holds two memberships; lists by channel keep them apart")
    func membershipsOfEquivalentChannels() async throws {
        let outcome = try await withEmulator { connection in
            _ = try Self.create(connection, "users", ["id": "alice"], mediaType: userMediaType)
            for id in [Self.cafeNFC, Self.cafeNFD] {
                _ = try Self.create(connection, "channels", ["id": .string(id)], mediaType: channelMediaType)
            }
            let first = try Self.create(
                connection, "memberships", ["id": "m-nfc", "channelId": .string(Self.cafeNFC), "userId": "alice"],
                mediaType: membershipMediaType)
            let second = try Self.create(
                connection, "memberships", ["id": "m-nfd", "channelId": .string(Self.cafeNFD), "userId": "alice"],
                mediaType: membershipMediaType)
            let byChannel = try connection.request(
                "GET", dataSyncPath("memberships?channel_id=\(percentEncoded(Self.cafeNFD))"))
            let removed = try connection.request("DELETE", dataSyncPath("channels/\(percentEncoded(Self.cafeNFC))"))
            let left = try connection.request("GET", dataSyncPath("memberships?user_id=alice"))
            let ids = { (response: RawHTTPResponse) in
                ((try? JSONValue(parsing: response.body))?["data"]?.arrayValue ?? []).compactMap {
                    $0["id"]?.stringValue
                }
            }
            return (first.status, second.status, ids(byChannel), removed.status, ids(left))
        }
        #expect(outcome.0 == 201)
        #expect(outcome.1 == 201)
        #expect(outcome.2 == ["m-nfd"])
        #expect(outcome.3 == 200)
        #expect(outcome.4 == ["m-nfd"])
    }

    @Test("the id limit is 255 Unicode scalars: 255 four-byte scalars pass, 256 scalars and one huge grapheme do not")
    func idLengthInScalars() async throws {
        let faces = String(repeating: "\u{1F600}", count: 255)  // 1,020 UTF-8 bytes
        let tooMany = String(repeating: "a", count: 256)
        let oneGrapheme = "e" + String(repeating: "\u{301}", count: 20_000)  // 1 character, 40,001 bytes
        let longStatus = "s" + String(repeating: "\u{301}", count: 100)  // 1 character, 101 scalars
        let statuses = try await withEmulator { connection in
            try [faces, tooMany, oneGrapheme].map { id in
                try Self.create(connection, "users", ["id": .string(id)], mediaType: userMediaType).status
            } + [
                try Self.create(
                    connection, "users", ["id": "st", "status": .string(longStatus)], mediaType: userMediaType
                )
                .status,
                try connection.request("GET", dataSyncPath("users/\(percentEncoded(faces))")).status,
            ]
        }
        #expect(statuses == [201, 400, 400, 400, 200])
    }

    @Test("state files keep equivalent ids apart across a restart")
    func persistedExactly() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.json").path
        let ids = [Self.angstrom, Self.aRing, Self.cafeNFC, Self.cafeNFD]
        do {
            // Scoped: an emulator holds its state file's lock until it is gone.
            let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            for id in ids {
                let response = await first.respond(
                    to: ServerRequest(
                        method: "POST", target: dataSyncPath("users"),
                        headers: [(name: "Content-Type", value: userMediaType)],
                        body: try dataBody(["id": .string(id), "entityClassVersion": 1])))
                #expect(response.status == 201)
            }
        }
        let second = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        let listed = await second.respond(to: ServerRequest(method: "GET", target: dataSyncPath("users")))
        let listedIds = (try JSONValue(parsing: listed.body))["data"]?.arrayValue?.map {
            scalars($0["id"]?.stringValue)
        }
        #expect(listedIds.map(Set.init) == Set(ids.map { scalars($0) }))
        #expect(listedIds?.count == 4)
    }
}
