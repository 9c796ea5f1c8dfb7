import Auth
import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import PubNubCore
import Realtime
import Testing

/// The SDK against an emulator with Access Manager on, over both HTTP backends: tokens minted by
/// the app's server through the grant endpoint, the 401 and 403 answers as `PubNubError`s and
/// statuses, token projections on REST reads, and the token provider's refresh after expiry on
/// the emulator's manual clock (nothing sleeps).
@Suite("Access Manager end to end (SDK ↔ protected emulator)", .timeLimit(.minutes(2)))
struct AccessEndToEndTests {
    static let userBits = 16 | 32 | 64 | 8  // create, get, update, delete

    @Test(arguments: HTTPBackend.allCases)
    func aTokenMintedByTheServerAndSetOnTheClientWorks(_ backend: HTTPBackend) async throws {
        try await AccessRig.start(backend).run { rig in
            let pubnub = try rig.client()
            // No token yet: DataSync refuses with 401.
            await #expect(throws: PubNubError.self) { try await pubnub.dataSync.getUser(id: "alice") }
            // The app's server mints a token for Alice; the client only ever sees the token.
            let token = try await rig.server.grantToken(
                ttlMinutes: 15, resources: ["uuids": ["alice": Self.userBits], "channels": ["room": 3]],
                authorizedUUID: "alice")
            pubnub.set(token: token)
            let created = try await pubnub.dataSync.createUser(classVersion: 1, id: "alice", payload: ["name": "Alice"])
            #expect(created.id == "alice")
            #expect(try await pubnub.dataSync.getUser(id: "alice").payload == ["name": "Alice"])
            let timetoken = try await pubnub.publish(channel: "room", message: ["text": "hi"])
            #expect(timetoken > 17_000_000_000_000_000)
            // The token is Alice's: another user id with it is refused.
            let mallory = try rig.client(userId: "mallory", token: token)
            let refused = try #require(await refusal { _ = try await mallory.dataSync.getUser(id: "alice") })
            #expect(refused.statusCode == 403)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func noTokenIs401UnauthorizedWithTheServicesCode(_ backend: HTTPBackend) async throws {
        try await AccessRig.start(backend).run { rig in
            let pubnub = try rig.client()
            let error = try #require(await refusal { _ = try await pubnub.dataSync.getEntity(id: "c1") })
            #expect(error.reason == .unauthorized)
            #expect(error.statusCode == 401)
            #expect(error.errorCode == "DS-0203")
            #expect(error.details.first?.errorCode == "DS-0203")
            #expect(error.message.contains("no credential"))
            // Pub/sub answers a missing credential with 403, as the service does on a PAM keyset.
            do throws(PubNubPublishError) {
                try await pubnub.publish(channel: "room", message: 1)
                Issue.record("a publish without a token was accepted")
            } catch {
                #expect(error.category == .accessDenied)
                #expect(error.statusCode == 403)
                #expect(error.reason == .forbidden)
            }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aTokenWithoutTheBitIs403WithTheDetailsOfTheBody(_ backend: HTTPBackend) async throws {
        try await AccessRig.start(backend).run { rig in
            let readOnly = try await rig.server.grantToken(
                ttlMinutes: 15, resources: ["datasync:entities": ["c1": 32], "channels": ["room": 1]])
            let pubnub = try rig.client(token: readOnly)
            #expect(try await pubnub.dataSync.getEntity(id: "c1").payload?["title"] == "Swift")
            // DataSync: get is granted, update is not.
            let update = try #require(
                await refusal {
                    _ = try await pubnub.dataSync.updateEntity(
                        id: "c1", operations: [.replace(path: "/payload/score", value: 5)])
                })
            #expect(update.reason == .forbidden)
            #expect(update.statusCode == 403)
            #expect(update.message == "Forbidden")
            #expect(update.service == "Access Manager")
            #expect(update.details == [PubNubError.Detail(message: "Forbidden")])
            // Nothing was written.
            #expect(try await pubnub.dataSync.getEntity(id: "c1").payload?["score"] == 3)
            // Pub/sub: read on the channel, no write; the body names the channel.
            do throws(PubNubPublishError) {
                try await pubnub.publish(channel: "room", message: 1)
                Issue.record("a publish without write was accepted")
            } catch {
                #expect(error.category == .accessDenied)
                #expect(error.errorData?.channels == ["room"])
                #expect(error.error.details.contains(PubNubError.Detail(message: "channel room", path: "channels")))
                #expect(error.error.service == "Access Manager")
            }
            // Channel-group management needs manage on the group.
            let group = try #require(
                await refusal { try await pubnub.add(channels: ["room"], to: "team") })
            #expect(group.reason == .forbidden)
            #expect(group.details.contains(PubNubError.Detail(message: "channel group team", path: "channel-groups")))
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aTokensProjectionDecidesWhichFieldsARestReadReturns(_ backend: HTTPBackend) async throws {
        try await AccessRig.start(backend).run { rig in
            let token = try await rig.server.grantToken(
                ttlMinutes: 15, patterns: ["datasync:entities": ["^c[0-9]$": 32]],
                meta: ["pn-projections": ["res": ["datasync:entities:c1": "stats"]]])
            let pubnub = try rig.client(token: token)
            let projected = try await pubnub.dataSync.getEntity(id: "c1")
            #expect(projected.payload == ["score": 3])
            #expect(projected.status == "open")
            #expect(projected.className == "Course")
            // Objects the projection does not name come whole, in a get and in a list.
            #expect(
                try await pubnub.dataSync.getEntity(id: "c2").payload == ["title": "Rust", "score": 4, "secret": "s2"])
            let listed = try await pubnub.dataSync.getEntities(className: "Course").entities
            #expect(listed.first { $0.id == "c1" }?.payload == ["score": 3])
            #expect(listed.first { $0.id == "c2" }?.payload?["secret"] == "s2")
            // A projection the class does not define: 403 DS-0202, a typed error with its code.
            pubnub.set(
                token: try await rig.server.grantToken(
                    ttlMinutes: 15, patterns: ["datasync:entities": ["^c[0-9]$": 32]],
                    meta: ["pn-projections": ["res": ["datasync:entities:c1": "__admin__"]]]))
            let unknown = try #require(await refusal { _ = try await pubnub.dataSync.getEntity(id: "c1") })
            #expect(unknown.reason == .forbidden)
            #expect(unknown.errorCode == "DS-0202")
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aForbiddenSubscribeIsReportedOnTheStatusStreamAndANewTokenResumesIt(_ backend: HTTPBackend) async throws {
        try await AccessRig.start(backend).run { rig in
            let readA = try await rig.server.grantToken(ttlMinutes: 15, resources: ["channels": ["a": 1]])
            let subscriber = try rig.client(token: readA)
            let statuses = subscriber.statuses(bufferingPolicy: .unbounded)
            let messages = subscriber.messages()
            subscriber.subscribe(to: ["a", "b"])
            let denied = try #require(await firstStatus(in: statuses) { $0.isError })
            #expect(denied.category == .accessDenied)
            #expect(denied.operation == .subscribe)
            #expect(denied.statusCode == 403)
            #expect(denied.errorData?.channels == ["b"])
            #expect(denied.errorData?.information == "Forbidden")
            #expect(!denied.willAutomaticallyRetry)
            #expect(!"\(denied)".contains(readA))
            // The server grants both channels; the loop resumes with the new token.
            subscriber.set(
                token: try await rig.server.grantToken(ttlMinutes: 15, resources: ["channels": ["a": 1, "b": 1]]))
            let resumed = try #require(await firstStatus(in: statuses) { !$0.isError })
            #expect(resumed.category == .connected)
            let publisher = try rig.client(
                userId: "bob", token: try await rig.server.grantToken(ttlMinutes: 15, resources: ["channels": ["b": 2]])
            )
            try await publisher.publish(channel: "b", message: ["text": "through"])
            var iterator = messages.makeAsyncIterator()
            let message = try #require(await iterator.next())
            #expect(message.channel == "b")
            #expect(message.payload == ["text": "through"])
            subscriber.unsubscribeAll()
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func theTokenProviderRefreshesAfterExpiryOnTheEmulatorClockWithNoRequestLost(_ backend: HTTPBackend) async throws {
        try await AccessRig.start(backend).run { rig in
            let log = ProviderLog()
            let server = rig.server
            // The app's token endpoint: asks its server for a one-minute token for Alice.
            let provider = ClosureTokenProvider { reason in
                let token = try await server.grantToken(
                    ttlMinutes: 1,
                    resources: ["uuids": ["alice": Self.userBits], "channels": ["room": 3]],
                    patterns: ["datasync:entities": ["^c[0-9]$": 32]], authorizedUUID: "alice")
                log.record(reason, token)
                return token
            }
            let (pubnub, recorder) = try rig.recordedClient(provider: provider)
            // The first request has no token: the provider is asked, and the request goes through.
            _ = try await pubnub.dataSync.createUser(classVersion: 1, id: "alice")
            #expect(log.reasons == [.missing])
            #expect(recorder.requests.map { $0.queryValue("auth") } == [log.tokens[0]])

            // One minute passes on the emulator's clock: the token is expired, nobody slept.
            rig.clock.advance(by: .seconds(61))
            // Six requests at once (DataSync reads and publishes) all meet "Token is expired.", share
            // one refresh, are resent with the new token, and succeed.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        if index.isMultiple(of: 2) {
                            _ = try await pubnub.dataSync.getEntity(id: "c1")
                        } else {
                            try await pubnub.publish(channel: "room", message: ["n": index])
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(log.reasons == [.missing, .expired])
            let afterExpiry = recorder.requests.dropFirst().map { $0.queryValue("auth") }
            #expect(afterExpiry.filter { $0 == log.tokens[0] }.count == 6)
            #expect(afterExpiry.filter { $0 == log.tokens[1] }.count == 6)
            #expect(afterExpiry.count == 12)

            // A subscribe after the next expiry: its handshake is refreshed the same way, with no
            // accessDenied status.
            rig.clock.advance(by: .seconds(61))
            let statuses = pubnub.statuses(bufferingPolicy: .unbounded)
            pubnub.subscribe(to: ["room"])
            let status = try #require(await firstStatus(in: statuses) { _ in true })
            #expect(status.category == .connected)
            #expect(log.reasons == [.missing, .expired, .expired])
            pubnub.unsubscribeAll()
        }
    }
}

/// Runs `body` and returns the `PubNubError` it throws (`nil`, with a recorded issue, when it
/// does not throw one).
func refusal(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> PubNubError? {
    do {
        try await body()
        Issue.record("expected a refusal", sourceLocation: sourceLocation)
        return nil
    } catch {
        guard let pubNubError = error.pubNubError else {
            Issue.record("not a PubNubError: \(error)", sourceLocation: sourceLocation)
            return nil
        }
        return pubNubError
    }
}
