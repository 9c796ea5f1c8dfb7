import DataSyncTestSupport
import Foundation
import PubNubCore
import Testing
import Transport

@Suite("Plain HTTP to another machine is warned about once per client")
struct InsecureConnectionWarningTests {
    /// Collects what a client reports to its warning handler.
    /// Unchecked: every access to `warnings` holds `lock`.
    private final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var warnings: [PubNubWarning] = []
        var all: [PubNubWarning] { lock.withLock { warnings } }
        func record(_ warning: PubNubWarning) { lock.withLock { warnings.append(warning) } }
    }

    private func client(origin: String, secure: Bool, recorder: Recorder, token: String? = nil) -> PubNub {
        var configuration = PubNubConfiguration(
            publishKey: nil, subscribeKey: "demo", userId: "me", authToken: token, origin: origin,
            useSecureConnections: secure, transport: MockHTTPClient.success())
        configuration.warningHandler = { recorder.record($0) }
        return PubNub(configuration: configuration)
    }

    @Test(
        "a remote host over plain HTTP raises insecureConnection once",
        arguments: ["proxy.internal:8080", "10.0.0.7", "[2001:db8::1]:80", "128.0.0.1", "localhost.example.com"])
    func remotePlainHTTP(_ origin: String) throws {
        let recorder = Recorder()
        let pubnub = client(origin: origin, secure: false, recorder: recorder, token: "SENTINEL-TOKEN-42")
        pubnub.set(token: "SENTINEL-TOKEN-43")
        #expect(recorder.all.count == 1)
        let warning = try #require(recorder.all.first)
        #expect(warning.code == .insecureConnection)
        #expect(warning.message.contains("plain HTTP"))
        #expect(!warning.description.contains("SENTINEL-TOKEN-42"))
    }

    @Test(
        "loopback origins and HTTPS never warn",
        arguments: [
            ("127.0.0.1:8090", false), ("127.5.6.7", false), ("localhost:8090", false), ("api.localhost", false),
            ("[::1]:8090", false), ("::ffff:127.0.0.1", false), ("ps.pndsn.com", true), ("10.0.0.7", true),
        ])
    func quietOrigins(_ origin: String, _ secure: Bool) {
        let recorder = Recorder()
        _ = client(origin: origin, secure: secure, recorder: recorder)
        #expect(recorder.all.isEmpty)
    }

    @Test("loopback detection does not resolve names or accept look-alikes")
    func loopbackDetection() throws {
        let cases: [(String, Bool)] = [
            ("127.0.0.1", true), ("127.255.255.254", true), ("LOCALHOST", true), ("0:0:0:0:0:0:0:1", true),
            ("127.0.0.256", false), ("127.0.0", false), ("1270.0.0.1", false), ("localhost.evil.com", false),
            ("::ffff:10.0.0.1", false), ("::2", false),
        ]
        for (host, expected) in cases {
            let origin = try PubNubOrigin(host.contains(":") ? "[\(host)]" : host, secure: false)
            #expect(origin.isLoopback == expected, "\(host)")
        }
    }
}
