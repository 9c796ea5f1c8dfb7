import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// Issue 19's wire fixes, over real HTTP: a bare `+` in a query, "is required", `Allow` on 405.
@Suite("Wire messages over HTTP")
struct WireMessageTests {
    @Test("a bare + in a query stays a literal plus; %2B is a plus too")
    func plusIsLiteral() async throws {
        try await withServed { served in
            try await served.create("users", ["id": "u1", "entityClassVersion": 1, "payload": ["name": "a+b"]])
            try await served.create("users", ["id": "u2", "entityClassVersion": 1, "payload": ["name": "a b"]])
            let bare = try await served.send("GET", #"/v1/datasync/subkeys/demo/users?filter_fast=name=="a+b""#)
            #expect(bare.status == 200, "\(bare.text)")
            #expect(bare.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["u1"])
            let encoded = try await served.send(
                "GET", "/v1/datasync/subkeys/demo/users?filter_fast=name%3D%3D%22a%2Bb%22")
            #expect(encoded.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["u1"])
            let space = try await served.send(
                "GET", "/v1/datasync/subkeys/demo/users?filter_fast=name%3D%3D%22a%20b%22")
            #expect(space.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["u2"])
        }
    }

    @Test(
        "a filter or sort that fails at a + says spaces are sent as %20",
        arguments: [
            ("filter_fast=name+==+'x'", "filter_fast"), ("filter=name+==+'x'", "filter"),
            ("sort=name+desc", "sort"), ("sort=+id", "sort"), ("filter_fast=name%2B%3D%3D'x'", "filter_fast"),
        ])
    func plusHint(query: String, parameter: String) async throws {
        try await withServed { served in
            let reply = try await served.send("GET", "/v1/datasync/subkeys/demo/users?" + query)
            #expect(reply.status == 400)
            #expect(reply.json?["errors"]?[0]?["path"]?.stringValue == parameter)
            let message = try #require(reply.errorMessage)
            #expect(message.contains("send spaces as %20"), "\(message)")
        }
    }

    @Test("a filter error elsewhere does not mention the plus")
    func noPlusHintElsewhere() async throws {
        try await withServed { served in
            let reply = try await served.send("GET", "/v1/datasync/subkeys/demo/users?filter_fast=name%20%3D%3D")
            #expect(reply.status == 400)
            #expect(reply.errorMessage?.contains("%20") == false)
            let value = try await served.send(
                "GET", #"/v1/datasync/subkeys/demo/users?filter_fast=name=="1+1"&sort=bogus"#)
            #expect(value.status == 400)
            #expect(value.errorMessage?.contains("%20") == false, "\(value.errorMessage ?? "")")
        }
    }

    @Test("a missing required field is 'is required', with its path")
    func missingIsRequired() async throws {
        try await withServed { served in
            let reply = try await served.send(
                "POST", "/v1/datasync/subkeys/demo/users", json: ["data": ["id": "u1"]],
                contentType: "application/vnd.pubnub.objects.user+json;version=1")
            #expect(reply.status == 400)
            #expect(
                reply.json
                    == [
                        "errors": [
                            [
                                "errorCode": "DS-0004", "message": "'entityClassVersion' is required",
                                "path": "/data/entityClassVersion",
                            ]
                        ]
                    ])
            let nothing = try await served.send(
                "POST", "/v1/datasync/subkeys/demo/users", json: ["data": nil],
                contentType: "application/vnd.pubnub.objects.user+json;version=1")
            #expect(nothing.errorMessage == "'data' is required")
            let relationships = try await served.send("GET", "/v1/datasync/subkeys/demo/relationships")
            #expect(relationships.errorMessage == "'relationship_class' is required")
            #expect(!(relationships.text.contains("must not be null")))
        }
    }

    @Test(
        "a 405 lists the methods of that resource in Allow",
        arguments: [
            ("PUT", "users", "GET, POST"), ("DELETE", "memberships", "GET, POST"),
            ("POST", "users/u1", "GET, PUT, PATCH, DELETE"), ("PUT", "entity-classes", "GET, POST"),
            ("PATCH", "entity-classes/Product", "GET, PUT, DELETE"),
            ("POST", "relationship-classes/X", "GET, PUT, DELETE"),
        ])
    func allowHeader(method: String, path: String, allow: String) async throws {
        try await withServed { served in
            let reply = try await served.send(method, "/v1/datasync/subkeys/demo/" + path)
            #expect(reply.status == 405)
            #expect(reply.header("Allow") == allow)
            #expect(reply.json?["errors"]?[0]?["errorCode"] == "DS-0001")
        }
    }

    @Test("admin routes answer a 405 with their own Allow")
    func adminAllowHeader() async throws {
        try await withServed { served in
            let reset = try await served.send("GET", "/_emulator/v1/reset")
            #expect(reset.status == 405)
            #expect(reset.header("Allow") == "POST")
            let clock = try await served.send("DELETE", "/_emulator/v1/clock")
            #expect(clock.header("Allow") == "GET")
            let console = try await served.send("POST", "/_emulator/console/index.html")
            #expect(console.header("Allow") == "GET")
        }
    }
}
