import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// The admin routes under `/_emulator`, over real HTTP: the reserved prefix, reset, export and
/// import, and how the admin API is protected.
@Suite("Admin routes over HTTP")
struct AdminRouteTests {
    static let classes: JSONValue = [
        "entityClasses": [
            [
                "name": "Product", "ttlDays": 90,
                "versions": [
                    [
                        "version": 1,
                        "properties": [
                            ["name": "price", "pointer": "/payload/price", "type": "number", "filtering": "full"]
                        ],
                    ]
                ],
            ],
            [
                "name": "Employee", "extends": "User", "eventsEnabled": true,
                "versions": [
                    [
                        "version": 1,
                        "properties": [
                            ["name": "team", "pointer": "/payload/team", "type": "string", "filtering": "simple"]
                        ],
                    ]
                ],
            ],
        ],
        "relationshipClasses": [
            [
                "name": "Bought", "cardinality": "many-to-many", "entityAClass": "User", "entityBClass": "Product",
                "versions": [["version": 1]],
            ]
        ],
    ]

    /// Runs `body` against a served emulator after ``fill(_:)``, and always stops it.
    static func withFilled(_ body: (Served) async throws -> Void) async throws {
        try await withServed { served in
            try await fill(served)
            try await body(served)
        }
    }

    /// Every collection filled in keyset `demo` (through REST), plus a user in keyset `other`.
    static func fill(_ served: Served) async throws {
        for kind in ["entity", "relationship"] {
            for definition in classes[kind + "Classes"]?.arrayValue ?? [] {
                let reply = try await served.send(
                    "POST", "/v1/datasync/subkeys/demo/\(kind)-classes", json: ["data": definition],
                    contentType: "application/json")
                try #require(reply.status == 201, "\(reply.text)")
            }
        }
        try await served.create("users", ["id": "alice", "entityClassVersion": 1, "payload": ["name": "Alice"]])
        try await served.create(
            "users", ["id": "e1", "entityClass": "Employee", "entityClassVersion": 1, "payload": ["team": "core"]])
        try await served.create("channels", ["id": "general", "entityClassVersion": 1, "status": "open"])
        try await served.create(
            "entities", ["id": "p1", "entityClass": "Product", "entityClassVersion": 1, "payload": ["price": 10]])
        try await served.create(
            "memberships", ["id": "m1", "channelId": "general", "userId": "alice", "relationshipClassVersion": 1])
        try await served.create(
            "relationships",
            [
                "id": "r1", "relationshipClass": "Bought", "relationshipClassVersion": 1, "entityAId": "e1",
                "entityBId": "p1",
            ])
        try await served.create("users", ["id": "zed", "entityClassVersion": 1], keyset: "other")
    }

    /// Every object of `keyset` with the fields a seed carries (no times, no eTags), by collection.
    static func objects(_ served: Served, keyset: String = "demo") async throws -> [String: [JSONValue]] {
        var result: [String: [JSONValue]] = [:]
        let lists = [
            "users": "", "channels": "", "entities": "entity_class=Product", "memberships": "",
            "relationships": "relationship_class=Bought",
        ]
        for (collection, query) in lists {
            let reply = try await served.send("GET", "/v1/datasync/subkeys/\(keyset)/\(collection)?limit=100&\(query)")
            // After a reset the custom classes are gone: nothing to list.
            if reply.status == 404, !query.isEmpty {
                result[collection] = []
                continue
            }
            try #require(reply.status == 200, "\(collection): \(reply.text)")
            result[collection] = (reply.json?["data"]?.arrayValue ?? []).map { object in
                var fields = object.objectValue ?? [:]
                for name in ["createdAt", "updatedAt", "eTag", "expiresAt"] { fields[name] = nil }
                return .object(fields)
            }
        }
        return result
    }

    @Test("the prefix is reserved: it redirects to the console, and a keyset named _emulator is just a keyset")
    func reservedPrefix() async throws {
        try await withServed { served in
            for path in ["/_emulator", "/_emulator/", "/_emulator/console"] {
                let reply = try await served.send("GET", path)
                #expect(reply.status == 302, "\(path)")
                #expect(reply.header("Location") == "/_emulator/console/")
            }
            let unknown = try await served.send("GET", "/_emulator/v1/nothing-here")
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"]?["message"]?.stringValue?.contains("no such admin route") == true)
            // A subscribe key spelled like the prefix is DataSync's, never an admin route.
            try await served.create("users", ["id": "u1", "entityClassVersion": 1], keyset: "_emulator")
            let listed = try await served.send("GET", "/v1/datasync/subkeys/_emulator/users")
            #expect(listed.json?["data"]?[0]?["id"] == "u1")
            let keysets = try await served.send("GET", "/_emulator/v1/keysets")
            let names = keysets.json?["keysets"]?.arrayValue?.compactMap { $0["subscribeKey"]?.stringValue } ?? []
            #expect(names.first == "demo", "the pub/sub keysets come first")
            #expect(names.contains("_emulator"))
            // An escaped underscore is not the prefix either: no service claims it, so the router's
            // neutral 404 answers.
            let escaped = try await served.send("GET", "/%5Femulator/v1/keysets")
            #expect(escaped.status == 404)
            #expect(escaped.json == ["status": 404, "error": true, "message": "Not Found"])
        }
    }

    @Test("keysets lists counts per collection and the classes")
    func keysetSummary() async throws {
        try await Self.withFilled { served in
            let reply = try await served.send("GET", "/_emulator/v1/keysets")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "application/json")
            let demo = try #require(reply.json?["keysets"]?.arrayValue?.first { $0["subscribeKey"] == "demo" })
            #expect(
                demo["objects"]
                    == ["users": 2, "channels": 1, "entities": 1, "memberships": 1, "relationships": 1])
            #expect(demo["pubSub"] == true)
            #expect(demo["accessControl"] == false)
            let employee = demo["entityClasses"]?.arrayValue?.first { $0["name"] == "Employee" }
            #expect(employee?["collection"] == "users")
            #expect(employee?["objects"] == 1)
            let other = reply.json?["keysets"]?.arrayValue?.first { $0["subscribeKey"] == "other" }
            #expect(other?["pubSub"] == false)
            #expect(other?["objects"]?["users"] == 1)
        }
    }

    @Test("reset empties one keyset (objects, classes, groups, presence) and leaves the others")
    func resetKeyset() async throws {
        try await Self.withFilled { served in
            _ = try await served.send("GET", "/v1/channel-registration/sub-key/demo/channel-group/g1?add=a,b")
            _ = try await served.send("GET", "/v2/presence/sub-key/demo/channel/general/heartbeat?uuid=alice")
            _ = try await served.send("GET", "/publish/demo/demo/0/general/0/%22hi%22")
            let before = await served.emulator.lastSequence
            let reply = try await served.send("POST", "/_emulator/v1/keysets/demo/reset")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(
                reply.json?["removedObjects"]
                    == ["users": 2, "channels": 1, "entities": 1, "memberships": 1, "relationships": 1])
            #expect(reply.json?["removedChannelGroups"] == 1)
            #expect(reply.json?["removedPresences"] == 1)
            let users = try await served.send("GET", "/v1/datasync/subkeys/demo/users")
            #expect(users.json?["data"] == [])
            let classes = try await served.send("GET", "/v1/datasync/subkeys/demo/entity-classes")
            #expect(
                classes.json?["data"]?.arrayValue?.compactMap { $0["name"]?.stringValue }.sorted() == [
                    "Channel", "User",
                ])
            let groups = try await served.send("GET", "/v1/channel-registration/sub-key/demo/channel-group")
            #expect(groups.json?["payload"]?["groups"] == [])
            let hereNow = try await served.send("GET", "/v2/presence/sub-key/demo/channel/general")
            #expect(hereNow.json?["occupancy"] == 0)
            let other = try await served.send("GET", "/v1/datasync/subkeys/other/users")
            #expect(other.json?["data"]?[0]?["id"] == "zed")
            // The change feed saw every removal, as a reset; nobody got a real-time delete.
            let changes = await served.emulator.changes(after: before)
            #expect(changes.count == 6)
            #expect(changes.allSatisfy { $0.action == .delete && $0.cause == .reset && $0.origin == .reset })
            await served.emulator.waitForDataSyncEvents()
            #expect(served.emulator.publishedDataSyncEvents(afterChange: before).isEmpty)
        }
    }

    @Test("reset of every keyset, and the in-process equivalents")
    func resetAll() async throws {
        try await Self.withFilled { served in
            let reply = try await served.send("POST", "/_emulator/v1/reset")
            #expect(reply.status == 200)
            let keys = reply.json?["keysets"]?.arrayValue?.compactMap { $0["subscribeKey"]?.stringValue }
            #expect(keys?.contains("demo") == true)
            #expect(keys?.contains("other") == true)
            #expect(try await served.send("GET", "/v1/datasync/subkeys/other/users").json?["data"] == [])
            try await served.create("users", ["id": "again", "entityClassVersion": 1])
            await served.emulator.resetKeyset("demo")
            #expect(try await served.send("GET", "/v1/datasync/subkeys/demo/users").json?["data"] == [])
            try await served.create("users", ["id": "again", "entityClassVersion": 1], keyset: "x")
            await served.emulator.resetAllKeysets()
            #expect(try await served.send("GET", "/v1/datasync/subkeys/x/users").json?["data"] == [])
        }
    }

    @Test("export writes the seed format; import of it (or --seed) gives the same objects back")
    func exportImportRoundTrip() async throws {
        try await Self.withFilled { served in
            let original = try await Self.objects(served)
            let export = try await served.send("GET", "/_emulator/v1/export")
            #expect(export.status == 200)
            let document = try #require(export.json)
            #expect(document["keysets"]?.objectValue?.keys.sorted() == ["demo", "other"])
            let demo = try #require(document["keysets"]?["demo"])
            // Parents before subclasses: Employee extends User, one level down.
            #expect(
                demo["entityClasses"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Product", "Employee"])
            #expect(
                demo["users"]?[1] == [
                    "id": "e1", "entityClass": "Employee", "entityClassLevel": "SubKey",
                    "entityClassVersion": 1, "payload": ["team": "core"],
                ])
            #expect(demo["relationships"]?[0]?["entityAId"] == "e1")
            // One keyset only.
            let one = try await served.send("GET", "/_emulator/v1/export?keyset=other")
            #expect(one.json?["keysets"]?.objectValue?.keys.sorted() == ["other"])

            _ = try await served.send("POST", "/_emulator/v1/reset")
            #expect(try await Self.objects(served)["users"] == [])
            let imported = try await served.send("POST", "/_emulator/v1/import", json: document)
            #expect(imported.status == 200, "\(imported.text)")
            #expect(imported.json?["keysets"]?["demo"]?["users"] == 2)
            #expect(imported.json?["keysets"]?["other"]?["users"] == 1)
            #expect(try await Self.objects(served) == original)
            #expect(try await Self.objects(served, keyset: "other")["users"]?.count == 1)

            // The same document as a seed, in a new emulator.
            let seeded = try Emulator(configuration: EmulatorConfiguration(seed: document, startTime: adminStart))
            #expect(await seeded.exportState() == document)
        }
    }

    @Test("import is all or nothing: a refused item changes nothing and names its pointer")
    func importAllOrNothing() async throws {
        try await Self.withFilled { served in
            let before = try await Self.objects(served)
            let document: JSONValue = [
                "keysets": [
                    "demo": [
                        "users": [["id": "new", "entityClassVersion": 1]],
                        "memberships": [["channelId": "nowhere", "userId": "new", "relationshipClassVersion": 1]],
                    ]
                ]
            ]
            let reply = try await served.send("POST", "/_emulator/v1/import", json: document)
            #expect(reply.status == 400)
            #expect(reply.errorMessage?.hasPrefix("/keysets/demo/memberships/0") == true, "\(reply.errorMessage ?? "")")
            #expect(try await Self.objects(served) == before)
            let notJSON = try await http(served.port, "POST", "/_emulator/v1/import", body: Array("{".utf8))
            #expect(notJSON.status == 400)
            await #expect(throws: EmulatorError.self) { try await served.emulator.importState(["nope": 1]) }
        }
    }

    @Test("import replaces only the keysets it names, pub/sub state included")
    func importReplacesNamedKeysets() async throws {
        try await Self.withFilled { served in
            _ = try await served.send("GET", "/v1/channel-registration/sub-key/demo/channel-group/g1?add=a")
            try await served.emulator.importState(["keysets": ["demo": ["users": [["id": "solo"]]]]])
            let users = try await served.send("GET", "/v1/datasync/subkeys/demo/users")
            #expect(users.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["solo"])
            let groups = try await served.send("GET", "/v1/channel-registration/sub-key/demo/channel-group")
            #expect(groups.json?["payload"]?["groups"] == [])
            #expect(try await served.send("GET", "/v1/datasync/subkeys/other/users").json?["data"]?[0]?["id"] == "zed")
        }
    }

    // MARK: Protection

    @Test("with access control on, admin calls need the admin secret; the console files do not")
    func secretWithAccessControl() async throws {
        try await withServed(protectedAdminConfiguration) { served in
            let secret = served.emulator.adminSecret
            #expect(served.emulator.adminSecretRequired)
            #expect(secret.count == 32)
            let none = try await served.send("GET", "/_emulator/v1/clock")
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            let wrong = try await served.send("GET", "/_emulator/v1/clock", headers: [("Authorization", "Bearer nope")])
            #expect(wrong.status == 401)
            let right = try await served.send(
                "GET", "/_emulator/v1/clock", headers: [("Authorization", "Bearer \(secret)")])
            #expect(right.status == 200)
            let page = try await served.send("GET", "/_emulator/console/")
            #expect(page.status == 200)
            // The secret is not a keyset credential: DataSync still wants a token.
            let data = try await served.send(
                "GET", "/v1/datasync/subkeys/sub/users", headers: [("Authorization", "Bearer \(secret)")])
            #expect(data.status == 401)
        }
    }

    @Test("a configured secret is needed even on an open emulator")
    func configuredSecret() async throws {
        let configuration = EmulatorConfiguration(startTime: adminStart, admin: AdminConfiguration(secret: "s3cret"))
        try await withServed(configuration) { served in
            #expect(served.emulator.adminSecret == "s3cret")
            #expect(try await served.send("POST", "/_emulator/v1/reset").status == 401)
            let ok = try await served.send("POST", "/_emulator/v1/reset", headers: [("Authorization", "bearer s3cret")])
            #expect(ok.status == 200)
        }
    }

    @Test("serving beyond loopback makes the secret required")
    func nonLoopback() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: adminStart))
        #expect(!emulator.adminSecretRequired)
        let url = try await emulator.start(host: "0.0.0.0")
        let port = try #require(url.port.flatMap { UInt16(exactly: $0) })
        #expect(emulator.adminSecretRequired)
        let refused = try await http(port, "GET", "/_emulator/v1/clock")
        let allowed = try await http(
            port, "GET", "/_emulator/v1/clock", headers: [("Authorization", "Bearer \(emulator.adminSecret)")])
        await emulator.stop()
        #expect(refused.status == 401)
        #expect(allowed.status == 200)
    }

    @Test("another site's page cannot reach the admin API: foreign Origin or non-loopback Host")
    func crossSite() async throws {
        try await withServed { served in
            let foreign = try await served.send(
                "POST", "/_emulator/v1/reset", headers: [("Origin", "http://evil.example")])
            #expect(foreign.status == 403)
            let own = try await served.send(
                "POST", "/_emulator/v1/reset", headers: [("Origin", "http://127.0.0.1:\(served.port)")])
            #expect(own.status == 200)
            let rebound = try await served.send(
                "GET", "/_emulator/v1/export", host: "evil.example:\(served.port)")
            #expect(rebound.status == 403)
            let localhost = try await served.send("GET", "/_emulator/v1/export", host: "localhost:\(served.port)")
            #expect(localhost.status == 200)
        }
    }

    @Test("admin routes can be switched off: the prefix then answers 404")
    func disabled() async throws {
        let configuration = EmulatorConfiguration(startTime: adminStart, admin: AdminConfiguration(enabled: false))
        try await withServed(configuration) { served in
            let clock = try await served.send("GET", "/_emulator/v1/clock")
            let console = try await served.send("GET", "/_emulator/console/")
            #expect(clock.status == 404)
            #expect(console.status == 404)
        }
    }
}
