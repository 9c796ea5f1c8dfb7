import DataSyncEmulator
import Foundation
import JSONCore
import Testing

@Suite struct PubSubEnforcementTests {
    static let forbiddenRoom: JSONValue = [
        "status": 403, "message": "Forbidden", "error": true, "service": "Access Manager",
        "payload": ["channels": ["room"], "channel-groups": []],
    ]

    @Test func accessControlIsOffByDefaultEvenWithTheDemoSecret() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: accessStart))
        let reply = await emulator.respond(to: .init(method: "GET", target: "/publish/demo/demo/0/room/0/1?uuid=a"))
        #expect(reply.status == 200)
        let client = try AccessClient()
        let open = await client.send("GET", "/publish/pub-o/sub-o/0/room/0/1?uuid=a&auth=junk")
        #expect(open.status == 200)
    }

    @Test func timeNeedsNoToken() async throws {
        let client = try AccessClient()
        #expect(await client.send("GET", "/time/0").status == 200)
    }

    @Test func publishNeedsWriteOnTheChannel() async throws {
        let client = try AccessClient()
        let none = await client.publish("room", auth: nil)
        #expect(none.status == 403)
        #expect(none.json == Self.forbiddenRoom)
        let readOnly = try await client.grant(["resources": ["channels": ["room": 1]]])
        #expect(await client.publish("room", auth: readOnly).json == Self.forbiddenRoom)
        let writer = try await client.grant(["resources": ["channels": ["room": 2]]])
        #expect(await client.publish("room", auth: writer).status == 200)
        #expect(await client.publish("other", auth: writer).status == 403)
        let signal = await client.send(
            "GET", "/signal/pub-c/sub-c/0/room/0/1?uuid=alice&auth=\(AccessClient.encode(writer))")
        #expect(signal.status == 200)
        let fire = await client.send(
            "GET", "/publish/pub-c/sub-c/0/room/0/1?store=0&norep=true&uuid=alice&auth=\(AccessClient.encode(writer))")
        #expect(fire.status == 200)
    }

    @Test func patternsGrantByRegularExpression() async throws {
        let client = try AccessClient()
        let token = try await client.grant(["patterns": ["channels": ["^room-[0-9]+$": 2]]])
        #expect(await client.publish("room-12", auth: token).status == 200)
        #expect(await client.publish("room-x", auth: token).status == 403)
    }

    @Test func anExactEntryDecidesAloneOverAPattern() async throws {
        let client = try AccessClient()
        let token = try await client.grant([
            "resources": ["channels": ["room-1": 1]], "patterns": ["channels": ["^room-.*$": 2]],
        ])
        #expect(await client.publish("room-1", auth: token).status == 403)
        #expect(await client.publish("room-2", auth: token).status == 200)
    }

    @Test func anExpiredTokenAnswersTokenIsExpiredOnTheEmulatorClock() async throws {
        let client = try AccessClient()
        let token = try await client.grant(["resources": ["channels": ["room": 2]]], ttl: 1)
        await client.emulator.advanceTime(bySeconds: 59)
        #expect(await client.publish("room", auth: token).status == 200)
        await client.emulator.advanceTime(bySeconds: 1)
        let reply = await client.publish("room", auth: token)
        #expect(reply.status == 403)
        #expect(
            reply.json == ["status": 403, "message": "Token is expired.", "error": true, "service": "Access Manager"])
    }

    @Test func aTokenOfAnotherKeysetOrEditedIsForbidden() async throws {
        let client = try AccessClient()
        let token = try await client.grant(["resources": ["channels": ["room": 2]]])
        var bytes = Array(token.utf8)
        bytes[10] = bytes[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let edited = String(decoding: bytes, as: UTF8.self)
        let reply = await client.publish("room", auth: edited)
        #expect(reply.status == 403)
        #expect(reply.json == ["status": 403, "message": "Forbidden", "error": true, "service": "Access Manager"])
        #expect(await client.publish("room", auth: "not-a-token").status == 403)
        #expect(await client.publish("room", auth: token.replacingOccurrences(of: "=", with: "")).status == 200)
    }

    @Test func theAuthorizedUUIDMustMatchTheRequest() async throws {
        let client = try AccessClient()
        let token = try await client.grant(["resources": ["channels": ["room": 2]], "uuid": "alice"])
        #expect(await client.publish("room", auth: token, uuid: "alice").status == 200)
        let other = await client.publish("room", auth: token, uuid: "mallory")
        #expect(other.status == 403)
        #expect(other.json?["message"] == "Forbidden")
    }

    @Test func subscribeNeedsReadOnEveryChannelAndGroupAndListsTheDenied() async throws {
        let client = try AccessClient()
        let token = try await client.grant([
            "resources": ["channels": ["a": 1, "a-pnpres": 1], "groups": ["g1": 1]]
        ])
        let auth = AccessClient.encode(token)
        let allowed = await client.send(
            "GET", "/v2/subscribe/sub-c/a,a-pnpres/0?tt=0&channel-group=g1&uuid=u&auth=\(auth)")
        #expect(allowed.status == 200)
        let denied = await client.send(
            "GET", "/v2/subscribe/sub-c/a,b,b-pnpres,__admin__e1/0?tt=0&channel-group=g1,g2&uuid=u&auth=\(auth)")
        #expect(denied.status == 403)
        #expect(
            denied.json
                == [
                    "status": 403, "message": "Forbidden", "error": true, "service": "Access Manager",
                    "payload": ["channels": ["b", "b-pnpres", "__admin__e1"], "channel-groups": [":g2"]],
                ])
    }

    @Test func presenceCallsNeedReadOnTheirChannels() async throws {
        let client = try AccessClient()
        let token = AccessClient.encode(try await client.grant(["resources": ["channels": ["a": 1]]]))
        for path in [
            "/v2/presence/sub-key/sub-c/channel/a", "/v2/presence/sub-key/sub-c/channel/a/heartbeat",
            "/v2/presence/sub-key/sub-c/channel/a/leave", "/v2/presence/sub-key/sub-c/channel/a/uuid/u",
            "/v2/presence/sub-key/sub-c/channel/a/uuid/u/data?state=%7B%7D",
        ] {
            let separator = path.contains("?") ? "&" : "?"
            #expect(await client.send("GET", path + separator + "uuid=u&auth=\(token)").status == 200, "\(path)")
            let other = path.replacingOccurrences(of: "/channel/a", with: "/channel/b")
            let reply = await client.send("GET", other + separator + "uuid=u&auth=\(token)")
            #expect(reply.status == 403, "\(other)")
            #expect(reply.json?["payload"]?["channels"] == ["b"])
        }
        #expect(await client.send("GET", "/v2/presence/sub-key/sub-c/uuid/u?uuid=u&auth=\(token)").status == 200)
        #expect(await client.send("GET", "/v2/presence/sub-key/sub-c/uuid/u?uuid=u").status == 403)
        #expect(await client.send("GET", "/v2/presence/sub-key/sub-c?uuid=u&auth=\(token)").status == 200)
    }

    @Test func channelGroupCallsNeedManageOnTheGroup() async throws {
        let client = try AccessClient()
        let manager = AccessClient.encode(try await client.grant(["resources": ["groups": ["g": 4]]]))
        let reader = AccessClient.encode(try await client.grant(["resources": ["groups": ["g": 1]]]))
        let base = "/v1/channel-registration/sub-key/sub-c/channel-group"
        #expect(await client.send("GET", "\(base)/g?add=a&uuid=u&auth=\(manager)").status == 200)
        #expect(await client.send("GET", "\(base)/g?uuid=u&auth=\(manager)").status == 200)
        let denied = await client.send("GET", "\(base)/g?add=a&uuid=u&auth=\(reader)")
        #expect(denied.status == 403)
        #expect(denied.json?["payload"]?["channel-groups"] == [":g"])
        #expect(await client.send("GET", "\(base)/g/remove?uuid=u&auth=\(reader)").status == 403)
        #expect(await client.send("GET", "\(base)/g/remove?uuid=u&auth=\(manager)").status == 200)
    }

    @Test func aSignedServerRequestNeedsNoToken() async throws {
        let client = try AccessClient()
        let path = "/publish/pub-c/sub-c/0/room/0/%22hi%22"
        #expect(await client.sendSigned("GET", path, query: [(name: "uuid", value: "server")]).status == 200)
        let wrong = await client.sendSigned("GET", path, query: [(name: "uuid", value: "server")], secret: "nope")
        #expect(wrong.status == 403)
        #expect(wrong.json?["error"]?["message"] == "Invalid signature")
    }
}

@Suite struct DataSyncEnforcementTests {
    @Test func noCredentialIs401WithDS0203() async throws {
        let client = try AccessClient()
        let reply = await client.dataSync("GET", "users/u1", auth: nil)
        #expect(reply.status == 401)
        #expect(reply.json?["errors"]?[0]?["errorCode"] == "DS-0203")
    }

    @Test func everyBucketAndBitIsChecked() async throws {
        let client = try AccessClient()
        let cases: [(collection: String, bucket: String, body: JSONValue)] = [
            ("users", "uuids", ["id": "x1", "entityClassVersion": 1]),
            ("channels", "channels", ["id": "x1", "entityClassVersion": 1]),
            ("entities", "datasync:entities", ["id": "x1", "entityClass": "Thing", "entityClassVersion": 1]),
        ]
        let classes: JSONValue = [
            "entityClasses": [["name": "Thing", "versions": [["version": 1, "properties": [], "projections": []]]]]
        ]
        try await client.emulator.defineClasses(classes, subscribeKey: AccessClient.subscribeKey)
        for item in cases {
            func token(_ bits: Int) async throws -> String {
                try await client.grant(["resources": [item.bucket: ["x1": .int(Int64(bits))]]])
            }
            let all = try await token(255)
            let onlyGet = try await token(32)
            // create (16)
            #expect(
                await client.dataSync("POST", item.collection, auth: onlyGet, body: ["data": item.body]).status == 403)
            #expect(
                await client.dataSync("POST", item.collection, auth: try await token(16), body: ["data": item.body])
                    .status == 201, "\(item.collection)")
            // get (32)
            #expect(await client.dataSync("GET", "\(item.collection)/x1", auth: onlyGet).status == 200)
            #expect(await client.dataSync("GET", "\(item.collection)/x1", auth: try await token(64)).status == 403)
            // update (64) for PUT and PATCH
            let update = try await token(64)
            #expect(
                await client.dataSync("PUT", "\(item.collection)/x1", auth: onlyGet, body: ["data": item.body]).status
                    == 403)
            #expect(
                await client.dataSync("PUT", "\(item.collection)/x1", auth: update, body: ["data": item.body]).status
                    == 200)
            let patch: JSONValue = [["op": "add", "path": "/status", "value": "on"]]
            #expect(await client.dataSync("PATCH", "\(item.collection)/x1", auth: onlyGet, body: patch).status == 403)
            #expect(await client.dataSync("PATCH", "\(item.collection)/x1", auth: update, body: patch).status == 200)
            // delete (8)
            #expect(await client.dataSync("DELETE", "\(item.collection)/x1", auth: onlyGet).status == 403)
            let deleted = await client.dataSync("DELETE", "\(item.collection)/x1", auth: all)
            #expect(deleted.status == 200 || deleted.status == 204)
        }
    }

    @Test func aGrantInTheWrongBucketIsForbidden() async throws {
        let client = try AccessClient()
        let token = try await client.grant(["resources": ["channels": ["u1": 255]]])
        let reply = await client.dataSync("GET", "users/u1", auth: token)
        #expect(reply.status == 403)
        #expect(reply.json == ["status": 403, "message": "Forbidden", "error": true, "service": "Access Manager"])
    }

    @Test func patternsGrantDataSyncIds() async throws {
        let client = try AccessClient()
        let token = try await client.grant(["patterns": ["uuids": ["^team-.*$": 48]]])
        #expect(
            await client.dataSync(
                "POST", "users", auth: token, body: ["data": ["id": "team-1", "entityClassVersion": 1]]
            ).status == 201)
        #expect(
            await client.dataSync(
                "POST", "users", auth: token, body: ["data": ["id": "solo", "entityClassVersion": 1]]
            ).status == 403)
        #expect(await client.dataSync("GET", "users/team-1", auth: token).status == 200)
        // A create without an id cannot be checked against a grant.
        #expect(
            await client.dataSync("POST", "users", auth: token, body: ["data": ["entityClassVersion": 1]]).status == 403
        )
    }

    @Test func aListKeepsOnlyTheRowsTheTokenMayGet() async throws {
        let client = try AccessClient()
        for id in ["a1", "a2", "b1"] {
            let created = await client.sendSigned(
                "POST", "/v1/datasync/subkeys/sub-c/users",
                body: Array(#"{"data":{"id":"\#(id)","entityClassVersion":1}}"#.utf8),
                headers: [(name: "Content-Type", value: AccessClient.contentType("POST", "users"))])
            #expect(created.status == 201, "\(created.text)")
        }
        let token = try await client.grant(["resources": ["uuids": ["b1": 32]], "patterns": ["uuids": ["^a1$": 32]]])
        let list = await client.dataSync("GET", "users", auth: token)
        #expect(list.status == 200)
        #expect(list.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a1", "b1"])
        let signed = await client.sendSigned("GET", "/v1/datasync/subkeys/sub-c/users")
        #expect(signed.json?["data"]?.arrayValue?.count == 3)
    }

    @Test func classWritesNeedASignature() async throws {
        let client = try AccessClient()
        let token = try await client.grant(["patterns": ["datasync:entities": [".*": 255]]])
        #expect(await client.dataSync("GET", "entity-classes", auth: token).status == 200)
        let body: JSONValue = [
            "data": ["name": "Thing", "versions": [["version": 1, "properties": [], "projections": []]]]
        ]
        #expect(await client.dataSync("POST", "entity-classes", auth: token, body: body).status == 403)
    }

    @Test func aTokenForAKeysetWithAccessControlOffIsNotNeeded() async throws {
        let client = try AccessClient()
        let reply = await client.send("GET", "/v1/datasync/subkeys/other-key/users/u1")
        #expect(reply.status == 404)
    }
}

@Suite struct MembershipBucketTests {
    @Test func membershipsAreGrantedByMembershipIdInTheirOwnBucket() async throws {
        let client = try AccessClient()
        for (collection, id) in [("users", "u1"), ("channels", "c1")] {
            let body = #"{"data":{"id":"\#(id)","entityClassVersion":1}}"#
            let created = await client.sendSigned(
                "POST", "/v1/datasync/subkeys/sub-c/\(collection)", body: Array(body.utf8),
                headers: [(name: "Content-Type", value: AccessClient.contentType("POST", collection))])
            #expect(created.status == 201)
        }
        let membership: JSONValue = [
            "data": ["id": "m1", "channelId": "c1", "userId": "u1", "relationshipClassVersion": 1]
        ]
        let wrongBucket = try await client.grant(["resources": ["datasync:relationships": ["m1": 255]]])
        #expect(await client.dataSync("POST", "memberships", auth: wrongBucket, body: membership).status == 403)
        let token = try await client.grant(["resources": ["datasync:memberships": ["m1": 56]]])
        #expect(await client.dataSync("POST", "memberships", auth: token, body: membership).status == 201)
        #expect(await client.dataSync("GET", "memberships/m1", auth: token).status == 200)
        #expect(await client.dataSync("GET", "memberships/m1", auth: wrongBucket).status == 403)
        let deleted = await client.dataSync("DELETE", "memberships/m1", auth: token)
        #expect(deleted.status == 200 || deleted.status == 204)
    }
}
