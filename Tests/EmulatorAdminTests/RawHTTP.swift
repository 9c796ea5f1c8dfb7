import DataSyncEmulator
import Foundation
import JSONCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// 2026-09-07T07:34:55Z: a whole second, so clock readings are exact.
let adminStart = Date(timeIntervalSince1970: 1_788_766_495)

/// One HTTP answer read off a real socket.
struct HTTPReply: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSONValue(parsing: body) }
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    var errorMessage: String? {
        json?["errors"]?[0]?["message"]?.stringValue ?? json?["error"]?["message"]?.stringValue
    }
}

struct SocketFailure: Error, CustomStringConvertible {
    var description: String
}

/// Sends one request over a real loopback socket (`Connection: close`) exactly as written: the
/// target is sent byte for byte, so a test controls every `+` and `%`. Runs on a thread of its
/// own so no cooperative thread blocks.
func http(
    _ port: UInt16, _ method: String, _ target: String, headers: [(name: String, value: String)] = [],
    body: [UInt8] = [], host: String? = nil
) async throws -> HTTPReply {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
    let request = Array((head + "\r\n").utf8) + body
    return try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try blockingExchange(port: port, request) })
        }
        thread.start()
    }
}

private func blockingExchange(port: UInt16, _ request: [UInt8]) throws -> HTTPReply {
    #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw SocketFailure(description: "socket failed") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 40, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { throw SocketFailure(description: "connect to port \(port) failed") }
    var sent = 0
    while sent < request.count {
        let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw SocketFailure(description: "send failed") }
        sent += count
    }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        // A signal (a child process of another test ending) interrupts a recv with a timeout set.
        if count < 0, errno == EINTR { continue }
        if count < 0 { throw SocketFailure(description: "recv failed: errno \(errno) (EAGAIN is the 40 s timeout)") }
        if count == 0 { break }
        received += chunk[0..<count]
    }
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let end = (0..<max(0, received.count - 3)).first(where: { Array(received[$0..<$0 + 4]) == separator })
    else { throw SocketFailure(description: "no HTTP response: \(String(decoding: received, as: UTF8.self))") }
    let lines = String(decoding: received[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
    guard let status = lines.first.flatMap({ Int($0.split(separator: " ").dropFirst().first ?? "") }) else {
        throw SocketFailure(description: "no status line")
    }
    let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    return HTTPReply(status: status, headers: headers, body: Array(received[(end + 4)...]))
}

/// An emulator served on an ephemeral loopback port for one test; always stopped.
struct Served {
    let emulator: Emulator
    let port: UInt16

    static func start(_ configuration: EmulatorConfiguration = EmulatorConfiguration(startTime: adminStart))
        async throws -> Served
    {
        let emulator = try Emulator(configuration: configuration)
        let url = try await emulator.start()
        let port = try #require(url.port.flatMap { UInt16(exactly: $0) })
        return Served(emulator: emulator, port: port)
    }

    func send(
        _ method: String, _ target: String, json: JSONValue? = nil, contentType: String? = nil,
        headers: [(name: String, value: String)] = [], host: String? = nil
    ) async throws -> HTTPReply {
        var all = headers
        if let contentType { all.append((name: "Content-Type", value: contentType)) }
        return try await http(port, method, target, headers: all, body: try json?.jsonBytes() ?? [], host: host)
    }

    /// POST `{"data": data}` to a DataSync collection of `keyset` with its vendor media type.
    @discardableResult
    func create(_ collection: String, _ data: JSONValue, keyset: String = "demo") async throws -> HTTPReply {
        let resource: String
        switch collection {
        case "users": resource = "user"
        case "channels": resource = "channel"
        case "entities": resource = "entity"
        case "memberships": resource = "membership"
        default: resource = "relationship"
        }
        let reply = try await send(
            "POST", "/v1/datasync/subkeys/\(keyset)/\(collection)", json: ["data": data],
            contentType: "application/vnd.pubnub.objects.\(resource)+json;version=1")
        try #require(reply.status == 201, "creating \(collection): \(reply.text)")
        return reply
    }

    func stop() async { await emulator.stop() }
}

/// Runs `body` against a served emulator and always stops it.
func withServed(
    _ configuration: EmulatorConfiguration = EmulatorConfiguration(startTime: adminStart),
    _ body: (Served) async throws -> Void
) async throws {
    let served = try await Served.start(configuration)
    do {
        try await body(served)
    } catch {
        await served.stop()
        throw error
    }
    await served.stop()
}
