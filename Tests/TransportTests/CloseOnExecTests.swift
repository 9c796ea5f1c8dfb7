import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import Testing
import Transport

#if canImport(Glibc)
    import Glibc
    private let openFilesResource = Int32(RLIMIT_NOFILE.rawValue)
#elseif canImport(Darwin)
    import Darwin
    private let openFilesResource = RLIMIT_NOFILE
#endif

/// The curl client's connections are close-on-exec: a process the app spawns must not hold a copy
/// of one, or a connection the client closes, or its server resets, stays open in the child and the
/// other end never sees it go (the soak test's Python publisher kept a reset connection alive so).
@Suite("Connections are not inherited by child processes")
struct CloseOnExecTests {
    /// The descriptors of this process's TCP sockets connected to `port` on the loopback.
    static func descriptors(connectedTo port: Int) -> [Int32] {
        // Every descriptor the process may have: a busy test process holds thousands.
        var limit = rlimit()
        let highest = getrlimit(openFilesResource, &limit) == 0 ? min(Int(limit.rlim_cur), 1 << 20) : 65_536
        return (0..<Int32(highest)).filter { fd in
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
            }
            return named == 0 && address.sin_family == sa_family_t(AF_INET)
                && Int(UInt16(bigEndian: address.sin_port)) == port
        }
    }

    @Test("a kept-alive curl connection is marked close-on-exec")
    func curlConnectionIsCloseOnExec() async throws {
        let server = try await HTTPTestServer.start()
        let client = try CurlHTTPClient()
        let response = try await client.send(server.request("/echo"))
        #expect(response.status == 200)
        // The connection stays open in the client's pool after the answer.
        let connections = Self.descriptors(connectedTo: server.port)
        try #require(!connections.isEmpty, "no connection to the server found")
        for fd in connections {
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(fd) would be inherited")
        }
        await server.server.stop()
    }

    @Test("curl connections probe a silent peer with TCP keep-alive, at the configured interval")
    func curlKeepAlive() async throws {
        let server = try await HTTPTestServer.start()
        var configuration = HTTPClientConfiguration()
        configuration.tcpKeepAlive = .seconds(7)
        let client = try CurlHTTPClient(configuration: configuration)
        #expect(try await client.send(server.request("/echo")).status == 200)
        let connections = Self.descriptors(connectedTo: server.port)
        try #require(!connections.isEmpty, "no connection to the server found")
        for fd in connections {
            var value: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            #expect(getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &value, &size) == 0 && value == 1)
            #if canImport(Glibc)
                value = 0
                #expect(getsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &value, &size) == 0 && value == 7)
            #endif
        }
        await server.server.stop()
    }
}
