import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import FileSharing
import Foundation
import JSONCore
import MessagePersistence
import PubNubBase
import PubNubCrypto
import Realtime
import Testing
import Transport

/// An emulator over loopback HTTP with the open `demo` keyset and the protected `pub-f`/`sub-f`
/// one, and clients for it.
enum FileRig {
    static let protected = PubSubKeyset.protected(publishKey: "pub-f", subscribeKey: "sub-f", secretKey: "sec-f")

    /// Clients wait on an `ImmediateClock`: the announcement-retry tests back off instantly.
    static func start() async throws -> KeysetRig {
        try await KeysetRig.start(protected: protected, clientClock: ImmediateClock())
    }
}

/// Passes requests to a real transport, counting uploads and answering the first `failures`
/// publish-file requests with a 503 of its own.
final class FlakyPublishTransport: HTTPClient, Sendable {
    let base: any HTTPClient
    private let state: Locked<(uploads: Int, publishes: Int, failures: Int)>

    init(base: any HTTPClient, failures: Int) {
        self.base = base
        state = Locked((0, 0, failures))
    }

    var uploads: Int { state.withLock { $0.uploads } }
    var publishes: Int { state.withLock { $0.publishes } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.path.hasPrefix("/_files/upload/") { state.withLock { $0.uploads += 1 } }
        if request.path.hasPrefix("/v1/files/publish-file/") {
            let fail = state.withLock { state -> Bool in
                state.publishes += 1
                guard state.failures > 0 else { return false }
                state.failures -= 1
                return true
            }
            if fail { return HTTPResponse(status: 503, body: Array("busy".utf8)) }
        }
        return try await base.send(request)
    }
}

@Suite("File sharing against the emulator, both backends")
struct FileSharingEndToEndTests {
    static let content = Array("hello, files".utf8)

    @Test(arguments: HTTPBackend.allCases)
    func sendListDownloadAndDelete(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let sent = try await pubnub.sendFile(
                channel: "room", name: "notes.txt", data: Self.content, contentType: "text/plain",
                message: ["text": "my notes"])
            #expect(sent.file.name == "notes.txt" && !sent.file.id.isEmpty)

            let page = try await pubnub.listFiles(channel: "room")
            #expect(page.files.map(\.reference) == [sent.file])
            #expect(page.files.first?.size == Self.content.count)
            #expect(page.next == nil)

            let url = try await pubnub.fileURL(channel: "room", file: sent.file)
            #expect(url.hasPrefix("http://127.0.0.1:\(rig.port)/_files/download/"))
            let downloaded = try await pubnub.downloadFile(channel: "room", file: sent.file)
            #expect(downloaded.data == Self.content)
            #expect(downloaded.contentType == "text/plain")

            let stored = try #require(
                try await pubnub.fetchMessages(from: ["room"], includeMessageType: true).channels["room"])
            #expect(stored.count == 1)
            #expect(stored.first?.timetoken == sent.timetoken && stored.first?.messageType == 4)
            #expect(stored.first?.message["file"] == ["id": .string(sent.file.id), "name": "notes.txt"])
            #expect(stored.first?.message["message"] == ["text": "my notes"])

            try await pubnub.deleteFile(channel: "room", file: sent.file)
            #expect(try await pubnub.listFiles(channel: "room").files.isEmpty)
            do {
                _ = try await pubnub.downloadFile(channel: "room", file: sent.file)
                Issue.record("a deleted file was downloaded")
            } catch {
                #expect(error.pubNubError?.reason == .resourceNotFound)
            }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func listPagesThroughEveryFile(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            let pubnub = try rig.client(backend)
            var sent: [PubNubFileReference] = []
            for index in 0..<5 {
                sent.append(try await pubnub.sendFile(channel: "room", name: "f\(index)", data: [UInt8(index)]).file)
            }
            var listed: [PubNubFileReference] = []
            var next: String?
            repeat {
                let page = try await pubnub.listFiles(channel: "room", limit: 2, next: next)
                #expect(page.files.count <= 2)
                listed += page.files.map(\.reference)
                next = page.next
            } while next != nil
            #expect(listed == sent)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func encryptedFilesAreStoredEncryptedAndDownloadDecrypted(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            for module in [
                try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma"),
                try CryptoModule.legacyCryptoModule(cipherKey: "enigma"),
            ] {
                let pubnub = try rig.client(backend, crypto: module)
                let sent = try await pubnub.sendFile(channel: "secret", name: "s.bin", data: Self.content)
                #expect(try await pubnub.downloadFile(channel: "secret", file: sent.file).data == Self.content)
                // What storage holds is the module's ciphertext of the file.
                let plain = try rig.client(backend)
                let raw = try await plain.downloadFile(channel: "secret", file: sent.file).data
                #expect(raw != Self.content)
                #expect(try module.decrypt(raw) == Self.content)
                // The file message is encrypted too; history decrypts it.
                let stored = try await pubnub.fetchMessages(from: ["secret"]).channels["secret"]?.last
                #expect(stored?.decryptionError == nil)
                #expect(stored?.message["file"]?["id"] == .string(sent.file.id))
                // Without the key the download fails as a decryption failure, not silently.
                let other = try rig.client(backend, crypto: try CryptoModule.aesCbcCryptoModule(cipherKey: "other"))
                do {
                    _ = try await other.downloadFile(channel: "secret", file: sent.file)
                    Issue.record("a file decrypted with the wrong key")
                } catch {
                    #expect(error.pubNubError?.reason.rawValue == "decryptionFailed")
                }
            }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func onlyThePublishIsRetriedAfterAnUpload(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            let flaky = FlakyPublishTransport(base: try backend.makeClient(), failures: 2)
            let pubnub = try rig.client(backend, transport: flaky)
            let sent = try await pubnub.sendFile(channel: "room", name: "a.txt", data: Self.content)
            #expect(flaky.uploads == 1)
            #expect(flaky.publishes == 3)
            #expect(try await pubnub.listFiles(channel: "room").files.map(\.reference) == [sent.file])
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func announcementsAreRetriedThroughServiceFaults(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            let entry = rig.emulator.addFault(
                FaultRule(
                    .status(503, body: nil), family: .files, pathPrefix: "/v1/files/publish-file/",
                    channel: "room", count: 2))
            let pubnub = try rig.client(backend)
            let sent = try await pubnub.sendFile(channel: "room", name: "a.txt", data: Self.content)
            #expect(!rig.emulator.faultEntries.contains { $0.id == entry.id })
            #expect(try await pubnub.listFiles(channel: "room").files.map(\.reference) == [sent.file])
            #expect(try await pubnub.fetchMessages(from: ["room"]).channels["room"]?.count == 1)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aFailedAnnouncementNamesTheUploadedFile(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            let flaky = FlakyPublishTransport(base: try backend.makeClient(), failures: 1000)
            let pubnub = try rig.client(backend, transport: flaky)
            do throws(PubNubSendFileError) {
                _ = try await pubnub.sendFile(channel: "room", name: "a.txt", data: Self.content)
                Issue.record("the send succeeded although every publish failed")
            } catch {
                #expect(flaky.uploads == 1)
                #expect(flaky.publishes > 1)
                #expect(error.error.reason == .serviceUnavailable)
                let stored = try #require(error.uploadedFile)
                #expect(try await pubnub.listFiles(channel: "room").files.map(\.reference) == [stored])
                // Announced later, without uploading again.
                let direct = try rig.client(backend)
                let timetoken = try await direct.publishFileMessage(channel: "room", file: stored)
                #expect(try await direct.fetchMessages(from: ["room"]).channels["room"]?.first?.timetoken == timetoken)
            }
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: HTTPBackend.allCases)
    func theSubscribeLoopDeliversTheFileEvent(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let listener = try rig.client(backend, userId: "listener")
            let sent = try await pubnub.sendFile(
                channel: "room", name: "a.txt", data: Self.content, message: "look",
                options: PubNubFileMessageOptions(meta: ["k": 1], customMessageType: "file-share"))
            let events = listener.fileEvents()
            listener.subscribe(to: ["room"], at: sent.timetoken - 1)
            defer { listener.unsubscribeAll() }
            var received: PubNubFileEvent?
            for await event in events {
                received = event
                break
            }
            let event = try #require(received)
            #expect(event.fileId == sent.file.id && event.fileName == sent.file.name)
            #expect(event.timetoken == sent.timetoken)
            #expect(event.message == "look")
            #expect(event.publisher == "alice")
            #expect(event.customMessageType == "file-share")
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func accessControlNeedsWriteToSendReadToListAndDownloadAndDeleteToDelete(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            let server = try rig.server(backend)
            let writer = try rig.client(
                backend, keyset: FileRig.protected,
                token: try await server.grantToken(ttlMinutes: 5, resources: ["channels": ["room": 2]]))
            let sent = try await writer.sendFile(channel: "room", name: "a.txt", data: Self.content)
            let refused: [() async throws -> Void] = [
                { _ = try await writer.listFiles(channel: "room") },
                { _ = try await writer.downloadFile(channel: "room", file: sent.file) },
                { try await writer.deleteFile(channel: "room", file: sent.file) },
            ]
            for call in refused {
                do {
                    try await call()
                    Issue.record("a file call was allowed without its permission")
                } catch {
                    #expect(error.pubNubError?.reason == .forbidden)
                }
            }
            let reader = try rig.client(
                backend, keyset: FileRig.protected,
                token: try await server.grantToken(ttlMinutes: 5, resources: ["channels": ["room": 1 | 8]]))
            do throws(PubNubSendFileError) {
                _ = try await reader.sendFile(channel: "room", name: "b.txt", data: Self.content)
                Issue.record("a send was allowed without write access")
            } catch {
                #expect(error.error.reason == .forbidden && error.uploadedFile == nil)
                #expect((error as any Error).pubNubError?.reason == .forbidden)
            }
            #expect(try await reader.listFiles(channel: "room").files.map(\.reference) == [sent.file])
            #expect(try await reader.downloadFile(channel: "room", file: sent.file).data == Self.content)
            try await reader.deleteFile(channel: "room", file: sent.file)
            #expect(try await reader.listFiles(channel: "room").files.isEmpty)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func completionFormsDeliverTheSameResults(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let sent = try await withCheckedThrowingContinuation { continuation in
                pubnub.sendFile(channel: "room", name: "c.txt", data: Self.content) { continuation.resume(with: $0) }
            }
            let page = try await withCheckedThrowingContinuation { continuation in
                pubnub.listFiles(channel: "room") { continuation.resume(with: $0) }
            }
            #expect(page.files.map(\.reference) == [sent.file])
            let downloaded = try await withCheckedThrowingContinuation { continuation in
                pubnub.downloadFile(channel: "room", file: sent.file) { continuation.resume(with: $0) }
            }
            #expect(downloaded.data == Self.content)
            let failure = await withCheckedContinuation { continuation in
                pubnub.sendFile(channel: "", name: "c.txt", data: Self.content) { continuation.resume(returning: $0) }
            }
            #expect((try? failure.get()) == nil)
            if case .failure(let error) = failure {
                #expect(error is PubNubSendFileError)
                #expect(error.pubNubError?.reason == .missingRequiredParameter)
            }
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                pubnub.deleteFile(channel: "room", file: sent.file) { continuation.resume(with: $0) }
            }
            #expect(try await pubnub.listFiles(channel: "room").files.isEmpty)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func fiveMebibytesIsTheLargestFile(_ backend: HTTPBackend) async throws {
        try await FileRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let largest = (0..<5 * 1024 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let sent = try await pubnub.sendFile(channel: "room", name: "big.bin", data: largest)
            #expect(try await pubnub.downloadFile(channel: "room", file: sent.file).data == largest)
            do throws(PubNubSendFileError) {
                _ = try await pubnub.sendFile(channel: "room", name: "bigger.bin", data: largest + [0])
                Issue.record("a file over 5 MiB was stored")
            } catch {
                #expect(error.error.reason == .payloadTooLarge && error.uploadedFile == nil)
            }
        }
    }

    @Test func badArgumentsFailBeforeSending() async throws {
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "demo", subscribeKey: "demo", userId: "me", transport: RefusingTransport(),
                retryPolicy: .none))
        let file = PubNubFileReference(id: "id", name: "n")
        let failures: [() async throws -> Void] = [
            { _ = try await pubnub.sendFile(channel: "", name: "a", data: [1]) },
            { _ = try await pubnub.sendFile(channel: "a", name: "", data: [1]) },
            { _ = try await pubnub.listFiles(channel: "") },
            { _ = try await pubnub.listFiles(channel: "a", limit: 0) },
            { _ = try await pubnub.listFiles(channel: "a", limit: 101) },
            { _ = try await pubnub.fileURL(channel: "a", file: PubNubFileReference(id: "", name: "n")) },
            { try await pubnub.deleteFile(channel: "a", file: PubNubFileReference(id: "i", name: "")) },
            { _ = try await pubnub.publishFileMessage(channel: "", file: file) },
        ]
        for failure in failures {
            do {
                try await failure()
                Issue.record("bad arguments were sent")
            } catch {
                let reason = (error as? PubNubSendFileError)?.error.reason ?? error.pubNubError?.reason
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
