import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import Testing
import Transport

@Suite("Backend setup and limits")
struct BackendSetupTests {
    @Test("a libcurl that cannot be loaded makes init throw unavailable")
    func missingLibcurl() {
        do {
            _ = try CurlHTTPClient(libraryPath: "/nonexistent/libcurl-missing.so.4")
            Issue.record("expected init to throw")
        } catch let error as TransportError {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("libcurl-missing"))
            #expect(!error.isRetryable)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("the platform default is libcurl on Linux and URLSession on Apple platforms")
    func platformDefault() throws {
        let (client, backend) = try PlatformHTTPClient.makeWithBackend()
        #if canImport(Darwin)
            #expect(backend == .urlSession)
            #expect(client is URLSessionHTTPClient)
        #else
            #expect(backend == .curl)
            #expect(client is CurlHTTPClient)
        #endif
        #expect(CurlHTTPClient.libcurlVersion?.first?.isNumber == true)
    }

    @Test("URLSession refuses a custom certificate authority instead of ignoring it")
    func urlSessionRefusesCustomAuthority() {
        let configuration = HTTPClientConfiguration(certificateAuthorityFile: "ca.pem")
        #expect(throws: TransportError.self) { _ = try URLSessionHTTPClient(configuration: configuration) }
        let (_, backend) = (try? PlatformHTTPClient.makeWithBackend(configuration: configuration)) ?? (nil, nil)
        #expect(backend == .curl)
    }

    @Test("a custom certificate authority file is used for HTTPS, and a missing one is a TLS error")
    func customAuthorityFile() async throws {
        let configuration = HTTPClientConfiguration(certificateAuthorityFile: "/nonexistent/test-ca.pem")
        let client = try CurlHTTPClient(configuration: configuration)
        try await LoopbackServer.with { server in
            var request = server.request("/echo")
            request.scheme = "https"
            let error = await transportError { try await client.send(request) }
            #expect(error?.code == .tls)
        }
    }

    @Test("a response over the size limit fails with tooLarge", arguments: HTTPBackend.allCases, ["", "chunked"])
    func responseLimit(backend: HTTPBackend, framing: String) async throws {
        let client = try backend.makeClient(HTTPClientConfiguration(maximumResponseBytes: 1_000))
        try await LoopbackServer.with { server in
            let query = framing.isEmpty ? [] : [HTTPQueryItem(name: "chunked", value: "100")]
            let error = await transportError { try await client.send(server.request("/bytes/5000", query: query)) }
            #expect(error?.code == .tooLarge)
            let small = try await client.send(server.request("/bytes/1000", query: query))
            #expect(small.body.count == 1_000)
        }
    }

    @Test("a task cancelled before sending fails with cancelled and sends nothing", arguments: HTTPBackend.allCases)
    func cancelledBeforeSending(backend: HTTPBackend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let request = server.request("/echo")
            let task = Task { () -> TransportError? in
                withUnsafeCurrentTask { $0?.cancel() }
                return await transportError { try await client.send(request) }
            }
            let error = await task.value
            #expect(error?.code == .cancelled)
            #expect(server.server.statistics.requestsReceived == 0)
        }
    }
}
