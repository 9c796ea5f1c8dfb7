import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import MessagePersistence
import Messaging
import PubNubCrypto
import Realtime
import Testing
import Transport

/// An emulator over loopback HTTP with the open `demo` keyset and the protected `pub-h`/`sub-h`
/// one, and clients for it.
enum HistoryRig {
    static let protected = PubSubKeyset.protected(publishKey: "pub-h", subscribeKey: "sub-h", secretKey: "sec-h")

    static func start() async throws -> KeysetRig { try await KeysetRig.start(protected: protected) }
}

@Suite("Message history and actions against the emulator, both backends")
struct HistoryEndToEndTests {
    private func publish(_ pubnub: PubNub, _ channel: String, _ values: [Int]) async throws -> [Timetoken] {
        var timetokens: [Timetoken] = []
        for value in values { timetokens.append(try await pubnub.publish(channel: channel, message: value)) }
        return timetokens
    }

    @Test(arguments: HTTPBackend.allCases)
    func fetchReturnsWhatWasPublishedWithItsFields(_ backend: HTTPBackend) async throws {
        try await HistoryRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let first = try await pubnub.publish(
                channel: "room", message: ["text": "hi"], customMessageType: "chat-text", meta: ["level": 1])
            _ = try await publish(pubnub, "room", [2, 3])
            _ = try await publish(pubnub, "other", [9])
            let fetched = try await pubnub.fetchMessages(
                from: ["room", "other"], includeMeta: true, includeCustomMessageType: true)
            let room = try #require(fetched.channels["room"])
            #expect(room.map(\.message) == [["text": "hi"], 2, 3])
            #expect(room[0].timetoken == first)
            #expect(room[0].publisher == "alice")
            #expect(room[0].meta == ["level": 1])
            #expect(room[1].meta == nil)
            #expect(room[0].customMessageType == "chat-text")
            #expect(room[0].messageType == nil)
            #expect(fetched.channels["other"]?.map(\.message) == [9])
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func pagesWalkBackwardsThroughTheWholeChannel(_ backend: HTTPBackend) async throws {
        try await HistoryRig.start().run { rig in
            let pubnub = try rig.client(backend)
            _ = try await publish(pubnub, "room", Array(0..<7))
            var pages: [[JSONValue]] = []
            for try await page in pubnub.historyPages(of: "room", pageSize: 3) { pages.append(page.map(\.message)) }
            #expect(pages == [[4, 5, 6], [1, 2, 3], [0]])
            let limited = try await pubnub.fetchMessages(from: ["room"], range: PubNubHistoryRange(limit: 2))
            #expect(limited.channels["room"]?.map(\.message) == [5, 6])
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func deleteAndCountsFollowTheServicesBounds(_ backend: HTTPBackend) async throws {
        try await HistoryRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let tt = try await publish(pubnub, "room", Array(0..<4))
            _ = try await publish(pubnub, "other", [0])
            let counts = try await pubnub.messageCounts(channels: ["room": tt[1], "other": tt[0]])
            #expect(counts == ["room": 2, "other": 1])
            try await pubnub.deleteMessages(from: "room", start: tt[2] - 1, end: tt[2])
            let left = try await pubnub.fetchMessages(from: ["room"])
            #expect(left.channels["room"]?.map(\.message) == [0, 1, 3])
            try await pubnub.deleteMessages(from: "room")
            #expect(try await pubnub.fetchMessages(from: ["room"]).channels["room"] == nil)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func encryptedMessagesAreDecryptedAndPlainOnesCarryADecryptionError(_ backend: HTTPBackend) async throws {
        try await HistoryRig.start().run { rig in
            let crypto = try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma")
            let secret = try rig.client(backend, crypto: crypto)
            let plain = try rig.client(backend)
            _ = try await secret.publish(channel: "room", message: ["n": 1])
            _ = try await plain.publish(channel: "room", message: "plain")
            let fetched = try #require(try await secret.fetchMessages(from: ["room"]).channels["room"])
            #expect(fetched[0].message == ["n": 1] && fetched[0].decryptionError == nil)
            #expect(fetched[1].message == "plain")
            #expect(fetched[1].decryptionError?.reason == .decryptionFailed)
            // Without a module the ciphertext comes back as stored.
            let raw = try #require(try await plain.fetchMessages(from: ["room"]).channels["room"])
            #expect(raw[0].message.stringValue != nil && raw[0].decryptionError == nil)
        }
    }

    @Test(arguments: HTTPBackend.allCases, [false, true])
    func actionsAreAddedListedFetchedWithMessagesAndRemoved(_ backend: HTTPBackend, viaCompletion: Bool)
        async throws
    {
        try await HistoryRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let message = try await pubnub.publish(channel: "room", message: "hello")
            let smiley: PubNubMessageAction
            if viaCompletion {
                smiley = try await withCheckedThrowingContinuation { continuation in
                    pubnub.addMessageAction(
                        channel: "room", type: "reaction", value: "smiley", messageTimetoken: message
                    ) { continuation.resume(with: $0) }
                }
            } else {
                smiley = try await pubnub.addMessageAction(
                    channel: "room", type: "reaction", value: "smiley", messageTimetoken: message)
            }
            #expect(smiley.uuid == "alice" && smiley.messageTimetoken == message && smiley.actionTimetoken > message)
            let read = try await pubnub.addMessageAction(
                channel: "room", type: "receipt", value: "read", messageTimetoken: message)
            do {
                _ = try await pubnub.addMessageAction(
                    channel: "room", type: "reaction", value: "smiley", messageTimetoken: message)
                Issue.record("a duplicate action was accepted")
            } catch {
                #expect(error.pubNubError?.reason == .conflict)
            }
            let page = try await pubnub.fetchMessageActions(channel: "room")
            #expect(page.actions == [smiley, read] && page.nextStart == nil)
            let older = try await pubnub.fetchMessageActions(channel: "room", limit: 1)
            #expect(older.actions == [read] && older.nextStart == read.actionTimetoken)
            let withActions = try await pubnub.fetchMessages(from: ["room"], includeActions: true)
            #expect(withActions.channels["room"]?.first?.actions == [smiley, read])
            try await pubnub.removeMessageAction(
                channel: "room", messageTimetoken: message, actionTimetoken: smiley.actionTimetoken)
            #expect(try await pubnub.fetchMessageActions(channel: "room").actions == [read])
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: HTTPBackend.allCases)
    func theSubscribeLoopDeliversWhatTheActionCallsDid(_ backend: HTTPBackend) async throws {
        try await HistoryRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let listener = try rig.client(backend, userId: "listener")
            let message = try await pubnub.publish(channel: "room", message: "hello")
            let events = listener.messageActions()
            listener.subscribe(to: ["room"], at: message)
            defer { listener.unsubscribeAll() }
            let added = try await pubnub.addMessageAction(
                channel: "room", type: "reaction", value: "smiley", messageTimetoken: message)
            try await pubnub.removeMessageAction(
                channel: "room", messageTimetoken: message, actionTimetoken: added.actionTimetoken)
            var received: [PubNubMessageActionEvent] = []
            for await event in events {
                received.append(event)
                if received.count == 2 { break }
            }
            #expect(received.map(\.event) == ["added", "removed"])
            for event in received {
                #expect(event.type == added.type && event.value == added.value && event.uuid == added.uuid)
                #expect(event.messageTimetoken == added.messageTimetoken)
                #expect(event.actionTimetoken == added.actionTimetoken)
            }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func accessControlNeedsReadForHistoryAndDeleteForDeleting(_ backend: HTTPBackend) async throws {
        try await HistoryRig.start().run { rig in
            let server = try rig.server(backend)
            let writer = try rig.client(
                backend, keyset: HistoryRig.protected,
                token: try await server.grantToken(ttlMinutes: 5, resources: ["channels": ["room": 2 | 64]]))
            let message = try await writer.publish(channel: "room", message: 1)
            _ = try await writer.addMessageAction(
                channel: "room", type: "reaction", value: "ok", messageTimetoken: message)
            do {
                _ = try await writer.fetchMessages(from: ["room"])
                Issue.record("a fetch without read access was allowed")
            } catch {
                #expect(error.pubNubError?.reason == .forbidden)
            }
            do {
                try await writer.deleteMessages(from: "room")
                Issue.record("a delete without delete access was allowed")
            } catch {
                #expect(error.pubNubError?.reason == .forbidden)
            }
            let reader = try rig.client(
                backend, keyset: HistoryRig.protected,
                token: try await server.grantToken(ttlMinutes: 5, resources: ["channels": ["room": 1 | 8]]))
            #expect(try await reader.fetchMessages(from: ["room"]).channels["room"]?.count == 1)
            #expect(try await reader.fetchMessageActions(channel: "room").actions.count == 1)
            try await reader.deleteMessages(from: "room")
            #expect(try await reader.fetchMessages(from: ["room"]).channels["room"] == nil)
        }
    }

    @Test func badArgumentsFailBeforeSending() async throws {
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "demo", subscribeKey: "demo", userId: "me", transport: RefusingTransport(),
                retryPolicy: .none))
        let failures: [() async throws -> Void] = [
            { _ = try await pubnub.fetchMessages(from: []) },
            { _ = try await pubnub.fetchMessages(from: ["a", "b"], includeActions: true) },
            { _ = try await pubnub.fetchMessages(from: ["a,b"]) },
            { _ = try await pubnub.fetchMessages(from: ["a"], range: PubNubHistoryRange(limit: 0)) },
            { _ = try await pubnub.addMessageAction(channel: "a", type: "", value: "v", messageTimetoken: 1) },
            {
                _ = try await pubnub.addMessageAction(
                    channel: "a", type: String(repeating: "t", count: 16), value: "v", messageTimetoken: 1)
            },
            { _ = try await pubnub.fetchMessageActions(channel: "a", limit: 101) },
            { _ = try await pubnub.messageCounts(channels: [:]) },
        ]
        for failure in failures {
            do {
                try await failure()
                Issue.record("bad arguments were sent")
            } catch {
                let reason = error.pubNubError?.reason
                #expect(reason == .invalidArguments || reason == .missingRequiredParameter, "\(error)")
            }
        }
    }
}

/// A transport that fails every request: a call that reaches it sent something it should not have.
struct RefusingTransport: HTTPClient {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        Issue.record("sent \(request.method) \(request.path)")
        throw TransportError(code: .cannotConnect, message: "refused")
    }
}
