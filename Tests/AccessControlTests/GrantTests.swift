import Auth
import DataSyncEmulator
import JSONCore
import Testing

@Suite struct GrantTests {
    @Test func aSignedGrantAnswersTheTokenInTheServiceEnvelope() async throws {
        let client = try AccessClient()
        let reply = await client.grantReply([
            "ttl": 15,
            "permissions": ["resources": ["channels": ["room": 3]], "patterns": [:], "meta": [:], "uuid": "alice"],
        ])
        #expect(reply.status == 200)
        let json = try #require(reply.json)
        #expect(json["status"] == 200)
        #expect(json["service"] == "Access Manager")
        #expect(json["data"]?["message"] == "Success")
        let token = try AccessToken(parsing: try #require(json["data"]?["token"]?.stringValue))
        #expect(token.ttlMinutes == 15)
        #expect(token.authorizedUserID == "alice")
        #expect(token.issuedAt == accessStart)
        #expect(token.allows([.read, .write], on: "room", in: .channels))
    }

    @Test func everyBucketOfTheGrantBodyLandsInItsTokenBucket() async throws {
        let client = try AccessClient()
        let names: [(String, TokenResourceBucket)] = [
            ("channels", .channels), ("groups", .channelGroups), ("uuids", .uuids), ("users", .users),
            ("spaces", .spaces), ("datasync:entities", .dataSyncEntities),
            ("datasync:relationships", .dataSyncRelationships), ("datasync:memberships", .dataSyncMemberships),
        ]
        var resources: [String: JSONValue] = [:]
        var patterns: [String: JSONValue] = [:]
        for (name, _) in names {
            resources[name] = ["x": 255]
            patterns[name] = ["^p-.*$": 32]
        }
        let text = try await client.grant(["resources": .object(resources), "patterns": .object(patterns)])
        let token = try AccessToken(parsing: text)
        for (_, bucket) in names {
            #expect(
                token.allows([.read, .write, .manage, .delete, .create, .get, .update, .join], on: "x", in: bucket))
            #expect(token.allows(.get, on: "p-1", in: bucket))
            #expect(!token.allows(.update, on: "p-1", in: bucket))
        }
    }

    @Test(arguments: [0, 43_201, -1])
    func aTTLOutOfBoundsIsRefused(ttl: Int) async throws {
        let client = try AccessClient()
        let reply = await client.grantReply([
            "ttl": .int(Int64(ttl)), "permissions": ["resources": ["channels": ["a": 1]]],
        ])
        #expect(reply.status == 400)
        #expect(
            reply.json
                == [
                    "status": 400,
                    "error": [
                        "message": "Invalid ttl", "source": "grant",
                        "details": [
                            [
                                "message": "Range should be 1 to 43200 minute(s).", "location": "ttl",
                                "locationType": "body",
                            ]
                        ],
                    ],
                    "service": "Access Manager",
                ])
    }

    @Test func theTTLBoundsThemselvesAreAccepted() async throws {
        let client = try AccessClient()
        for ttl in [1, 43_200] {
            _ = try await client.grant(["resources": ["channels": ["a": 1]]], ttl: ttl)
        }
    }

    @Test(arguments: [
        #"{"ttl":5}"#, #"{"ttl":5,"permissions":{"resources":{"rooms":{"a":1}}}}"#,
        #"{"ttl":5,"permissions":{"resources":{"channels":{"a":256}}}}"#,
        #"{"ttl":5,"permissions":{"patterns":{"channels":{"(":1}}}}"#, #"{"ttl":5,"permissions":{}}"#, "nope",
        #"{"ttl":5,"permissions":{"resources":{"channels":{"a":1}},"meta":[1]}}"#,
    ])
    func aMalformedBodyIs400FromGrant(body: String) async throws {
        let client = try AccessClient()
        let reply = await client.sendSigned(
            "POST", "/v3/pam/\(AccessClient.subscribeKey)/grant", body: Array(body.utf8))
        #expect(reply.status == 400)
        #expect(reply.json?["error"]?["source"] == "grant")
        #expect(reply.json?["service"] == "Access Manager")
    }

    @Test func anUnsignedGrantIsRefused() async throws {
        let client = try AccessClient()
        let reply = await client.send(
            "POST", "/v3/pam/\(AccessClient.subscribeKey)/grant?uuid=x", body: Array(#"{"ttl":5}"#.utf8))
        #expect(reply.status == 403)
        #expect(reply.json?["error"]?["message"] == "Invalid signature")
        #expect(reply.json?["error"]?["details"]?[0]?["message"] == "The request carries no signature.")
    }

    @Test func aGrantSignedWithTheWrongKeyIsRefused() async throws {
        let client = try AccessClient()
        let reply = await client.sendSigned(
            "POST", "/v3/pam/\(AccessClient.subscribeKey)/grant", body: Array(#"{"ttl":5}"#.utf8), secret: "wrong")
        #expect(reply.status == 403)
        #expect(
            reply.json
                == [
                    "status": 403,
                    "error": [
                        "message": "Invalid signature", "source": "authz",
                        "details": [
                            [
                                "message": "Client and server produced different signatures for the same inputs.",
                                "location": "signature", "locationType": "query",
                            ]
                        ],
                    ],
                    "service": "Access Manager",
                ])
    }

    @Test func aStaleTimestampIsRefusedEvenWhenTheSignatureIsRight() async throws {
        let client = try AccessClient()
        for offset in [-61, 61] {
            let reply = await client.sendSigned(
                "POST", "/v3/pam/\(AccessClient.subscribeKey)/grant",
                body: Array(#"{"ttl":5,"permissions":{"resources":{"channels":{"a":1}}}}"#.utf8),
                timestamp: client.nowSeconds + offset)
            #expect(reply.status == 403)
            #expect(reply.json?["error"]?["message"] == "Request timestamp is out of range")
        }
        let edge = await client.sendSigned(
            "POST", "/v3/pam/\(AccessClient.subscribeKey)/grant",
            body: Array(#"{"ttl":5,"permissions":{"resources":{"channels":{"a":1}}}}"#.utf8),
            timestamp: client.nowSeconds - 60)
        #expect(edge.status == 200)
    }

    @Test func anAlteredQueryOrBodyBreaksTheSignature() async throws {
        let client = try AccessClient()
        let body = Array(#"{"ttl":5,"permissions":{"resources":{"channels":{"a":1}}}}"#.utf8)
        let path = "/v3/pam/\(AccessClient.subscribeKey)/grant"
        let query = [(name: "uuid", value: "server"), (name: "timestamp", value: String(client.nowSeconds))]
        let signature = RequestSignature.sign(
            method: "POST", path: path, query: query, body: body, publishKey: AccessClient.publishKey,
            secretKey: AccessClient.secretKey)
        let good = "uuid=server&timestamp=\(client.nowSeconds)&signature=\(signature)"
        #expect(await client.send("POST", path + "?" + good, body: body).status == 200)
        let alteredQuery = "uuid=servex&timestamp=\(client.nowSeconds)&signature=\(signature)"
        #expect(await client.send("POST", path + "?" + alteredQuery, body: body).status == 403)
        let added = good + "&extra=1"
        #expect(await client.send("POST", path + "?" + added, body: body).status == 403)
        var alteredBody = body
        alteredBody[alteredBody.count - 4] = UInt8(ascii: "2")
        #expect(await client.send("POST", path + "?" + good, body: alteredBody).status == 403)
        let missingTimestamp = "uuid=server&signature=\(signature)"
        let reply = await client.send("POST", path + "?" + missingTimestamp, body: body)
        #expect(reply.status == 403)
        #expect(reply.json?["error"]?["message"] == "Invalid timestamp")
    }

    @Test func grantWorksOnAKeysetWithAccessControlOffAndNotOnAnUnknownOne() async throws {
        let client = try AccessClient()
        let body = Array(#"{"ttl":5,"permissions":{"resources":{"channels":{"a":1}}}}"#.utf8)
        let query = [(name: "timestamp", value: String(client.nowSeconds))]
        let path = "/v3/pam/sub-o/grant"
        let signature = RequestSignature.sign(
            method: "POST", path: path, query: query, body: body, publishKey: "pub-o", secretKey: "sec-o")
        let reply = await client.send(
            "POST", path + "?timestamp=\(client.nowSeconds)&signature=\(signature)", body: body)
        #expect(reply.status == 200)
        let unknown = await client.send("POST", "/v3/pam/nope/grant", body: body)
        #expect(unknown.status == 400)
        #expect(unknown.json?["message"] == "Invalid Subscribe Key")
    }

    @Test func revokeAnswersSuccessAndTheTokenIsRefusedFromThen() async throws {
        let client = try AccessClient()
        let token = try await client.grant(["resources": ["channels": ["room": 2]]])
        #expect(await client.publish("room", auth: token).status == 200)
        let revoke = await client.sendSigned(
            "DELETE", "/v3/pam/\(AccessClient.subscribeKey)/grant/\(AccessClient.encode(token))")
        #expect(revoke.status == 200)
        #expect(revoke.json == ["status": 200, "data": ["message": "Success"], "service": "Access Manager"])
        let refused = await client.publish("room", auth: token)
        #expect(refused.status == 403)
        #expect(
            refused.json == ["status": 403, "message": "Token is revoked.", "error": true, "service": "Access Manager"])
        let unsigned = await client.send("DELETE", "/v3/pam/\(AccessClient.subscribeKey)/grant/\(token)")
        #expect(unsigned.status == 403)
        let garbage = await client.sendSigned("DELETE", "/v3/pam/\(AccessClient.subscribeKey)/grant/abcd")
        #expect(garbage.status == 400)
        #expect(garbage.json?["error"]?["source"] == "revoke")
    }
}
