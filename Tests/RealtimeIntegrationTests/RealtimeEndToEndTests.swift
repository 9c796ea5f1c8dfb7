import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import Messaging
import Realtime
import Testing

/// Realtime against the emulator's pub/sub service over real HTTP, on both backends: a second
/// client publishes with Messaging, the subscriber receives through listeners and streams.
@Suite("Realtime end to end against the emulator", .timeLimit(.minutes(1)))
struct RealtimeEndToEndTests {
    @Test("Published messages arrive in order, exactly once, with their metadata", arguments: HTTPBackend.allCases)
    func messagesInOrder(_ backend: HTTPBackend) async throws {
        try await withRealtime(backend) { fixture in
            let subscription = fixture.subscriber.channel("room").subscription()
            let stream = subscription.messages()
            let reader = Task { () -> [PubNubMessage] in
                var seen: [PubNubMessage] = []
                for await message in stream {
                    seen.append(message)
                    if seen.count == 21 { break }
                }
                return seen
            }
            #expect(await fixture.timeline.waitForStatus(.connected))
            await fixture.waitForReceive()
            let first = try await fixture.publisher.publish(
                channel: "room", message: ["text": "hello"], customMessageType: "chat-text", meta: ["lang": "en"])
            let rest = try await fixture.publish("room", 1...20)
            #expect(await fixture.timeline.waitForMessages(21))
            let messages = fixture.timeline.messages
            #expect(messages.count == 21)
            #expect(messages.map(\.timetoken) == [first] + rest)
            #expect(messages.dropFirst().map(\.number) == Array(1...20))
            let hello = try #require(messages.first)
            #expect(hello.payload == ["text": "hello"])
            #expect(hello.channel == "room" && hello.subscription == nil)
            #expect(hello.publisher == "publisher")
            #expect(hello.metadata == ["lang": "en"])
            #expect(hello.customMessageType == "chat-text")
            let streamed = await reader.value
            #expect(streamed == messages)
            #expect(fixture.timeline.categories() == [.connected])
            subscription.unsubscribe()
        }
    }

    @Test("Signals arrive as signals; fire is never delivered", arguments: HTTPBackend.allCases)
    func signalsAndFire(_ backend: HTTPBackend) async throws {
        try await withRealtime(backend) { fixture in
            #expect(await fixture.subscribe(["room"]))
            await fixture.waitForReceive()
            let signal = try await fixture.publisher.signal(channel: "room", message: "typing")
            _ = try await fixture.publisher.fire(channel: "room", message: ["fired": true])
            _ = try await fixture.publisher.publish(channel: "room", message: "after-fire")
            #expect(await fixture.timeline.waitForMessages(1))
            #expect(fixture.timeline.signals.map(\.payload) == ["typing"])
            #expect(fixture.timeline.signals.first?.timetoken == signal)
            #expect(fixture.timeline.messages.map(\.payload) == ["after-fire"])
            #expect(fixture.timeline.events.count == 2)
        }
    }

    @Test(
        "A channel group filled by Messaging delivers with the group as subscription", arguments: HTTPBackend.allCases)
    func channelGroups(_ backend: HTTPBackend) async throws {
        try await withRealtime(backend) { fixture in
            try await fixture.publisher.add(channels: ["g.one", "g.two"], to: "team")
            #expect(await fixture.subscribe([], groups: ["team"]))
            await fixture.waitForReceive()
            _ = try await fixture.publisher.publish(channel: "g.one", message: 1)
            _ = try await fixture.publisher.publish(channel: "elsewhere", message: 2)
            _ = try await fixture.publisher.publish(channel: "g.two", message: 3)
            #expect(await fixture.timeline.waitForMessages(2))
            let messages = fixture.timeline.messages
            #expect(messages.map(\.channel) == ["g.one", "g.two"])
            #expect(messages.map(\.subscription) == ["team", "team"])
            #expect(messages.map(\.payload) == [1, 3])
            #expect(fixture.subscriber.subscribedChannelGroups == ["team"])
        }
    }

    @Test("A wildcard a.* receives every channel under a.", arguments: HTTPBackend.allCases)
    func wildcard(_ backend: HTTPBackend) async throws {
        try await withRealtime(backend) { fixture in
            #expect(await fixture.subscribe(["a.*"]))
            await fixture.waitForReceive()
            for channel in ["a.b", "b.x", "a.b.c", "ab", "a.z"] {
                _ = try await fixture.publisher.publish(channel: channel, message: JSONValue.string(channel))
            }
            #expect(await fixture.timeline.waitForMessages(3))
            let messages = fixture.timeline.messages
            #expect(messages.map(\.channel) == ["a.b", "a.b.c", "a.z"])
            #expect(messages.allSatisfy { $0.subscription == "a.*" })
        }
    }

    @Test("Presence: join, state change, leave and timeout (on the emulator's clock)", arguments: HTTPBackend.allCases)
    func presence(_ backend: HTTPBackend) async throws {
        try await withRealtime(backend) { fixture in
            // The subscriber's own join is announced with the handshake, before the cursor it
            // receives from, so it is not delivered to itself.
            #expect(await fixture.subscribe(["lobby"], withPresence: true))
            await fixture.waitForReceive()

            // A second user joins, sets state and leaves.
            /// A second client like the subscriber's, as `userId`, that joins `lobby`: connected,
            /// and its join seen by the subscriber.
            func join(as userId: String, presenceTimeout: Duration? = nil) async throws -> (PubNub, Timeline) {
                var configuration = fixture.subscriber.configuration
                configuration.userId = userId
                if let presenceTimeout { configuration.presenceTimeout = presenceTimeout }
                configuration.transport = try backend.makeClient()
                let pubnub = PubNub(configuration: configuration)
                let timeline = Timeline()
                timeline.attach(to: pubnub)
                pubnub.subscribe(to: ["lobby"])
                #expect(await timeline.waitForStatus(.connected))
                #expect(await fixture.timeline.wait { items in Self.presence(items).contains { $0.uuid == userId } })
                return (pubnub, timeline)
            }
            let (other, _) = try await join(as: "other")
            _ = try await other.setPresence(state: ["mood": "busy"], on: ["lobby"])
            #expect(await fixture.timeline.wait { items in Self.presence(items).contains { $0.event == .stateChange } })
            other.unsubscribe(from: ["lobby"])
            #expect(await fixture.timeline.wait { items in Self.presence(items).contains { $0.event == .leave } })

            // A third user stops without leaving and times out after its 20 s presence timeout.
            let (third, thirdTimeline) = try await join(as: "third", presenceTimeout: .seconds(20))
            third.disconnect()
            #expect(await thirdTimeline.waitForStatus(.disconnected))
            fixture.emulatorClock.advance(by: .seconds(21))
            #expect(await fixture.timeline.wait { items in Self.presence(items).contains { $0.event == .timeout } })

            let presence = fixture.timeline.presence
            #expect(presence.map(\.event) == [.join, .stateChange, .leave, .join, .timeout])
            #expect(presence.map(\.uuid) == ["other", "other", "other", "third", "third"])
            #expect(presence.map(\.occupancy) == [2, 2, 1, 2, 1])
            #expect(presence.count == 5 && presence[1].state == ["mood": "busy"])
            #expect(presence.allSatisfy { $0.channel == "lobby" })
            #expect(fixture.timeline.categories() == [.connected])
            other.unsubscribeAll()
            third.unsubscribeAll()
        }
    }

    static func presence(_ items: [Seen]) -> [PubNubPresenceEvent] {
        Timeline.events(items).compactMap { event in
            if case .presence(let presence) = event { return presence }
            return nil
        }
    }

    @Test("A burst published while disconnected is caught up after reconnect()", arguments: HTTPBackend.allCases)
    func catchUpAfterDisconnect(_ backend: HTTPBackend) async throws {
        try await withRealtime(backend) { fixture in
            #expect(await fixture.subscribe(["feed"]))
            await fixture.waitForReceive()
            _ = try await fixture.publish("feed", 1...3)
            #expect(await fixture.timeline.waitForMessages(3))
            fixture.subscriber.disconnect()
            #expect(await fixture.timeline.waitForStatus(.disconnected))
            _ = try await fixture.publish("feed", 4...40)
            fixture.subscriber.reconnect()
            #expect(await fixture.timeline.waitForMessages(40))
            #expect(fixture.timeline.messages.map(\.number) == Array(1...40))
            #expect(fixture.timeline.categories() == [.connected, .disconnected, .connected])
        }
    }

    @Test(
        "time() reads the emulator's clock; here-now and where-now see the subscriber", arguments: HTTPBackend.allCases)
    func timeAndPresenceQueries(_ backend: HTTPBackend) async throws {
        try await withRealtime(backend) { fixture in
            let time = try await fixture.publisher.time()
            let expected = UInt64(RealtimeFixture.startTime.timeIntervalSince1970) * 10_000_000
            #expect(time >= expected && time < expected + 10_000_000)
            #expect(String(time).count == 17)

            #expect(await fixture.subscribe(["hn.one", "hn.two"]))
            let hereNow = try await fixture.publisher.hereNow(on: ["hn.one", "hn.two"])
            #expect(hereNow.totalOccupancy == 2)
            #expect(hereNow.channels["hn.one"]?.occupants.map(\.userId) == ["subscriber"])
            #expect(hereNow.channels["hn.two"]?.occupancy == 1)
            let whereNow = try await fixture.publisher.whereNow(for: "subscriber")
            #expect(Set(whereNow) == ["hn.one", "hn.two"])
            fixture.subscriber.unsubscribe(from: ["hn.two"])
            #expect(await fixture.timeline.waitForStatus(.disconnected))
            await fixture.observer.waitAnswered(.leave, 1)
            #expect(try await fixture.publisher.whereNow(for: "subscriber") == ["hn.one"])
        }
    }

    @Test(
        "Encrypted publishes are decrypted; a foreign key gives decryptionError; signals stay plain",
        arguments: HTTPBackend.allCases)
    func encryption(_ backend: HTTPBackend) async throws {
        let module = try CryptoModule.aesCbcCryptoModule(cipherKey: "e2e-key")
        let legacy = try CryptoModule.legacyCryptoModule(cipherKey: "e2e-key")
        let foreign = try CryptoModule.aesCbcCryptoModule(cipherKey: "someone else")
        try await withRealtime(
            backend, configure: { $0.cryptoModule = module },
            { fixture in
                #expect(await fixture.subscribe(["vault"]))
                await fixture.waitForReceive()
                let aes = try fixture.makeClient(userId: "aes") { $0.cryptoModule = module }
                let old = try fixture.makeClient(userId: "legacy") { $0.cryptoModule = legacy }
                let stranger = try fixture.makeClient(userId: "stranger") { $0.cryptoModule = foreign }
                _ = try await aes.publish(channel: "vault", message: ["n": 1], meta: ["m": true])
                _ = try await old.publish(channel: "vault", message: ["n": 2], shouldCompress: true)
                _ = try await aes.signal(channel: "vault", message: "hint")
                let lost = try await stranger.publish(channel: "vault", message: ["n": 3])
                _ = try await fixture.publisher.publish(channel: "vault", message: ["n": 4])
                #expect(await fixture.timeline.waitForMessages(4))
                #expect(await fixture.timeline.waitForStatuses(3))
                let messages = fixture.timeline.messages
                #expect(messages.map(\.payload["n"]) == [1, 2, nil, 4])
                #expect(messages.first?.metadata == ["m": true])
                // The foreign ciphertext arrives as the base64 text it was.
                #expect(messages[2].payload.stringValue.map { (try? foreign.decryptMessage($0)) == ["n": 3] } == true)
                #expect(messages[3].payload == ["n": 4])
                #expect(fixture.timeline.signals.map(\.payload) == ["hint"])
                #expect(fixture.timeline.categories() == [.connected, .decryptionError, .decryptionError])
                #expect(fixture.timeline.statuses[1].currentTimetoken == lost)
            })
    }
}
