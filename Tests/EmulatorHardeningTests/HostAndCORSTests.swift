import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Testing

/// Sends `head` (request line and header fields, without the final blank line) and `body` over a
/// fresh connection to `port` and returns the response.
private func exchange(_ port: UInt16, _ head: String, body: [UInt8] = []) async throws -> RawHTTPResponse {
    try await onThread {
        let connection = try RawSocket(port: port)
        defer { connection.close() }
        var text = head + "\r\n"
        if !body.isEmpty { text += "Content-Length: \(body.count)\r\n" }
        try connection.send(Array((text + "\r\n").utf8) + body)
        return try connection.response()
    }
}

/// Runs `body` with an emulator served on `host` (default loopback), always stopping it.
private func withServing(
    _ configuration: EmulatorConfiguration = EmulatorConfiguration(), host: String = "127.0.0.1",
    _ body: (Emulator, UInt16) async throws -> Void
) async throws {
    let emulator = try Emulator(configuration: configuration)
    let url = try await emulator.start(host: host)
    let port = try #require(url.port.flatMap { UInt16(exactly: $0) })
    try await emulator.run { try await body($0, port) }
}

/// Issue 35, item 5: a page on another site whose DNS name is rebound to 127.0.0.1 cannot use
/// the data API of a loopback emulator.
@Suite("DNS rebinding: a loopback emulator answers loopback host names and allowed ones only")
struct HostCheckTests {
    static let users = dataSyncPath("users")

    @Test("Host: evil.example cannot list, create or delete objects; loopback names can")
    func foreignHostIsRefused() async throws {
        try await withServing { _, port in
            let created = try await exchange(
                port, "POST \(Self.users) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: \(userMediaType)",
                body: try dataBody(["id": "u1", "entityClassVersion": 1]))
            #expect(created.status == 201)
            let list = try await exchange(port, "GET \(Self.users) HTTP/1.1\r\nHost: evil.example:\(port)")
            #expect(list.status == 403)
            #expect(list.text.contains("--allowed-host evil.example"))
            #expect(!list.text.contains("u1"))
            let create = try await exchange(
                port, "POST \(Self.users) HTTP/1.1\r\nHost: evil.example\r\nContent-Type: \(userMediaType)",
                body: try dataBody(["id": "u2", "entityClassVersion": 1]))
            #expect(create.status == 403)
            let delete = try await exchange(
                port, "DELETE \(dataSyncPath("users/u1")) HTTP/1.1\r\nHost: evil.example:\(port)")
            #expect(delete.status == 403)
            let time = try await exchange(port, "GET /time/0 HTTP/1.1\r\nHost: evil.example:\(port)")
            #expect(time.status == 403)
            for host in [
                "127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "127.0.0.1", "app.localhost",
            ] {
                let reply = try await exchange(port, "GET \(Self.users) HTTP/1.1\r\nHost: \(host)")
                #expect(reply.status == 200, "Host: \(host)")
                #expect(reply.text.contains("\"u1\"") && !reply.text.contains("\"u2\""), "Host: \(host)")
            }
        }
    }

    @Test("EmulatorConfiguration.allowedHosts answers the names it lists (a leading dot: the domain and below)")
    func allowedHostsAreAnswered() async throws {
        var configuration = EmulatorConfiguration()
        configuration.allowedHosts = ["evil.example", ".dev.test"]
        try await withServing(configuration) { _, port in
            for host in ["evil.example:\(port)", "Evil.Example", "dev.test", "api.dev.test:\(port)"] {
                let reply = try await exchange(port, "GET \(Self.users) HTTP/1.1\r\nHost: \(host)")
                #expect(reply.status == 200, "Host: \(host)")
            }
            for host in ["other.example", "notdev.test", "evil.example.attacker.test"] {
                let reply = try await exchange(port, "GET \(Self.users) HTTP/1.1\r\nHost: \(host)")
                #expect(reply.status == 403, "Host: \(host)")
            }
            // The admin API answers an allowed name too (the console is opened through it).
            let clock = try await exchange(port, "GET /_emulator/v1/clock HTTP/1.1\r\nHost: evil.example:\(port)")
            #expect(clock.status == 200)
        }
    }

    @Test("datasync-emulator --allowed-host evil.example answers that name; without the flag it is refused")
    func allowedHostFlag() async throws {
        for (arguments, status) in [([String](), 403), (["--allowed-host", "evil.example"], 200)] {
            let emulator = try await EmulatorProcess.start(arguments: arguments)
            let reply: RawHTTPResponse
            do {
                reply = try await exchange(
                    emulator.port, "GET \(Self.users) HTTP/1.1\r\nHost: evil.example:\(emulator.port)")
            } catch {
                _ = try await emulator.stopped()
                throw error
            }
            _ = try await emulator.stopped()
            #expect(reply.status == status, "\(arguments)")
        }
    }

    @Test("an HTTP/1.0 request without Host is answered")
    func http10WithoutHost() async throws {
        try await withServing { _, port in
            let reply = try await exchange(port, "GET /time/0 HTTP/1.0")
            #expect(reply.status == 200)
        }
    }

    @Test("an absolute-form target is routed, and its authority, not Host, is the host checked")
    func absoluteForm() async throws {
        try await withServing { _, port in
            let own = try await exchange(
                port, "GET http://127.0.0.1:\(port)\(Self.users)?limit=1 HTTP/1.1\r\nHost: evil.example")
            #expect(own.status == 200, "\(own.text)")
            let foreign = try await exchange(
                port, "GET http://evil.example:\(port)\(Self.users) HTTP/1.1\r\nHost: 127.0.0.1:\(port)")
            #expect(foreign.status == 403)
            let time = try await exchange(port, "GET http://localhost:\(port)/time/0 HTTP/1.1\r\nHost: localhost")
            #expect(time.status == 200)
        }
    }

    @Test("served beyond loopback, every host name is answered (clients on the LAN use their own names)")
    func beyondLoopbackAnswersAnyHost() async throws {
        try await withServing(host: "0.0.0.0") { _, port in
            let reply = try await exchange(port, "GET \(Self.users) HTTP/1.1\r\nHost: emulator.lan:\(port)")
            #expect(reply.status == 200)
        }
    }

    @Test("a refusal and an answer are the same at once and through a task")
    func bothPathsAgree() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration())
        for host in ["evil.example", "localhost:8090"] {
            // An unclaimed path is answered at once (404) unless the host is refused (403).
            let request = ServerRequest(method: "GET", target: "/nowhere", headers: [(name: "Host", value: host)])
            let task = await emulator.respond(to: request)
            let immediate = try #require(emulator.handler.respondImmediately(to: request))
            #expect(immediate.status == task.status)
            #expect(immediate.headers.map(\.name) == task.headers.map(\.name))
            #expect(task.status == (host == "evil.example" ? 403 : 404))
        }
    }
}

/// Issue 35, item 6: browsers may call the service routes from any origin, as PubNub's service
/// allows; the admin routes keep refusing other origins and send no CORS header.
@Suite("CORS on the service routes, never on /_emulator/")
struct CORSTests {
    @Test(
        "a preflight on a service route is answered 204 with the methods and headers the SDKs send",
        arguments: [
            dataSyncPath("users/u1"), dataSyncPath("users"), "/publish/demo/demo/0/room/0",
            "/v2/subscribe/demo/room/0", "/v2/presence/sub-key/demo/channel/room/heartbeat", "/time/0",
            "/v3/pam/demo/grant",
        ])
    func preflight(path: String) async throws {
        try await withServing { _, port in
            let reply = try await exchange(
                port,
                "OPTIONS \(path) HTTP/1.1\r\nHost: localhost:\(port)\r\nOrigin: http://app.example:5173\r\n"
                    + "Access-Control-Request-Method: PATCH\r\n"
                    + "Access-Control-Request-Headers: if-match, content-type, content-encoding, x-trace-id")
            #expect(reply.status == 204)
            #expect(reply.header("Access-Control-Allow-Origin") == "*")
            let methods = reply.header("Access-Control-Allow-Methods") ?? ""
            for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] { #expect(methods.contains(method)) }
            let headers = (reply.header("Access-Control-Allow-Headers") ?? "").lowercased()
            for name in ["if-match", "content-type", "content-encoding", "x-trace-id"] {
                #expect(headers.contains(name), "\(name) in \(headers)")
            }
            #expect(reply.header("Access-Control-Allow-Private-Network") == nil)
        }
    }

    @Test("actual answers on service routes carry Access-Control-Allow-Origin: *, errors included")
    func actualAnswers() async throws {
        try await withServing { _, port in
            let origin = "Host: localhost:\(port)\r\nOrigin: http://app.example"
            for target in ["/time/0", dataSyncPath("users"), dataSyncPath("users/missing"), "/nowhere"] {
                let reply = try await exchange(port, "GET \(target) HTTP/1.1\r\n\(origin)")
                #expect(reply.header("Access-Control-Allow-Origin") == "*", "\(target) -> \(reply.status)")
            }
        }
    }

    @Test("a preflight on a keyset with access control needs no token")
    func preflightNeedsNoToken() async throws {
        let configuration = EmulatorConfiguration(
            pubSub: PubSubConfiguration(keysets: [.protected(publishKey: "p", subscribeKey: "s", secretKey: "k")]))
        try await withServing(configuration) { _, port in
            let reply = try await exchange(
                port,
                "OPTIONS \(dataSyncPath("users", subscribeKey: "s")) HTTP/1.1\r\nHost: localhost\r\n"
                    + "Origin: http://app.example\r\nAccess-Control-Request-Method: GET")
            #expect(reply.status == 204)
            let denied = try await exchange(
                port, "GET \(dataSyncPath("users", subscribeKey: "s")) HTTP/1.1\r\nHost: localhost\r\nOrigin: http://x")
            #expect(denied.status == 401 || denied.status == 403)
            #expect(denied.header("Access-Control-Allow-Origin") == "*")
        }
    }

    @Test("the admin routes answer no CORS header, to a preflight or anything else")
    func adminRoutesHaveNoCORS() async throws {
        try await withServing { _, port in
            let preflight = try await exchange(
                port,
                "OPTIONS /_emulator/v1/reset HTTP/1.1\r\nHost: localhost:\(port)\r\nOrigin: http://app.example\r\n"
                    + "Access-Control-Request-Method: POST")
            #expect(preflight.status != 204 && preflight.status != 200)
            let foreign = try await exchange(
                port, "GET /_emulator/v1/clock HTTP/1.1\r\nHost: localhost:\(port)\r\nOrigin: http://app.example")
            #expect(foreign.status == 403)
            let own = try await exchange(port, "GET /_emulator/v1/clock HTTP/1.1\r\nHost: localhost:\(port)")
            #expect(own.status == 200)
            let console = try await exchange(port, "GET /_emulator/console/ HTTP/1.1\r\nHost: localhost:\(port)")
            for reply in [preflight, foreign, own, console] {
                #expect(!reply.headers.contains { $0.name.lowercased().hasPrefix("access-control-") })
            }
        }
    }

    @Test("a preflight and a CORS answer are the same at once and through a task")
    func bothPathsAgree() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration())
        let requests = [
            ServerRequest(
                method: "OPTIONS", target: dataSyncPath("users/u1"),
                headers: [
                    (name: "Origin", value: "http://a.example"), (name: "Access-Control-Request-Method", value: "PUT"),
                ]),
            ServerRequest(method: "GET", target: "/nowhere", headers: [(name: "Origin", value: "http://a.example")]),
        ]
        for request in requests {
            let task = await emulator.respond(to: request)
            let immediate = try #require(emulator.handler.respondImmediately(to: request))
            #expect(immediate.status == task.status)
            #expect(immediate.headers.map(\.name) == task.headers.map(\.name))
            #expect(immediate.headers.map(\.value) == task.headers.map(\.value))
            #expect(task.headers.contains { $0.name == "Access-Control-Allow-Origin" && $0.value == "*" })
        }
    }
}
