import EmulatorHTTP
import Foundation
import JSONCore
import Testing
import Transport

/// One conformance suite for every built-in backend, against the emulator's HTTP server on loopback.
///
/// Serialized so that the 10 MB cases do not occupy the cooperative threads while the
/// cancellation case measures how quickly a held request ends.
@Suite("HTTPClient conformance", .serialized)
struct HTTPClientConformanceTests {
    @Test(
        "every method reaches the server with its body",
        arguments: Backend.allCases, [HTTPMethod.get, .head, .post, .put, .patch, .delete, .options])
    func methods(backend: Backend, method: HTTPMethod) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let hasBody = [HTTPMethod.post, .put, .patch].contains(method)
            let body = hasBody ? Array("payload for \(method)".utf8) : nil
            let response = try await client.send(server.request(method, "/echo/item", body: body))
            #expect(response.status == 200)
            if method == .head {
                #expect(response.body.isEmpty)
                #expect(response.headers["Content-Length"] != nil)
            } else {
                let echo = try Echo(response)
                #expect(echo.method == method.rawValue)
                #expect(echo.path == "/echo/item")
                #expect(echo.body == (body ?? []))
            }
        }
    }

    @Test(
        "reserved and unicode query characters arrive exactly as encoded",
        arguments: Backend.allCases,
        [
            "plain", "a b", "a+b", "&=?#/", "100%", "é", "日本語", "🙂", "'\"<>[]{}|\\^`", "",
        ])
    func queryEncoding(backend: Backend, value: String) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let query = [HTTPQueryItem(name: "k ey", value: value), HTTPQueryItem(name: "flag", value: nil)]
            let request = server.request("/echo", query: query)
            let echo = try Echo(try await client.send(request))
            #expect(echo.query == request.encodedQuery)
        }
    }

    @Test("request and response headers round-trip", arguments: Backend.allCases)
    func headers(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            var headers: HTTPHeaders = ["X-Custom": "value with  spaces", "Authorization": "Bearer t0k3n"]
            headers.add(name: "X-Multi", value: "a")
            headers.add(name: "X-Multi", value: "b")
            let query = [HTTPQueryItem(name: "header", value: "X-Reply:hello there")]
            let response = try await client.send(server.request("/echo", query: query, headers: headers))
            let echo = try Echo(response)
            #expect(echo.headerValues("x-custom") == ["value with  spaces"])
            #expect(echo.headerValues("authorization") == ["Bearer t0k3n"])
            // Repeated fields may be sent as one comma-joined field (URLSession does); both are equivalent.
            let multi = echo.headerValues("X-Multi").joined(separator: ",").replacingOccurrences(of: " ", with: "")
            #expect(multi == "a,b")
            #expect(response.headers["x-reply"] == "hello there")
            #expect(response.headers["Content-Type"] == "application/json")
        }
    }

    @Test("empty, 1-byte and 10 MB bodies go both ways", arguments: Backend.allCases, [0, 1, 10 << 20])
    func bodies(backend: Backend, size: Int) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let upload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            // Large uploads are checked by length and CRC, so the echo stays small.
            let query = size > 1 ? [HTTPQueryItem(name: "omitBody", value: "1")] : []
            let echo = try Echo(
                try await client.send(
                    server.request(.post, "/echo", query: query, body: upload, timeout: .seconds(300))))
            #expect(echo.bodyLength == size)
            #expect(echo.json["bodyCRC32"]?.intValue == Int(HTTPTestingHandler.checksum(upload)))
            if size <= 1 { #expect(echo.body == upload) }
            let download = try await client.send(server.request("/bytes/\(size)", timeout: .seconds(300)))
            #expect(download.status == 200)
            #expect(download.body == HTTPTestingHandler.pattern(size))
        }
    }

    @Test(
        "204 and error statuses come back as responses with their bodies", arguments: Backend.allCases,
        [204, 400, 403, 404, 409, 429, 500, 503])
    func statuses(backend: Backend, status: Int) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let response = try await client.send(server.request("/status/\(status)"))
            #expect(response.status == status)
            #expect(response.body == (status == 204 ? [] : Array("status \(status)".utf8)))
        }
    }

    @Test("gzip and chunked responses are decoded", arguments: Backend.allCases)
    func gzipAndChunked(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let expected = HTTPTestingHandler.pattern(200_000)
            let gzip = try await client.send(server.request("/bytes/200000", query: [.init(name: "gzip", value: "1")]))
            #expect(gzip.body == expected)
            let chunked = try await client.send(
                server.request("/bytes/200000", query: [.init(name: "chunked", value: "4096")]))
            #expect(chunked.body == expected)
            let both = try await client.send(
                server.request(
                    "/bytes/200000", query: [.init(name: "chunked", value: "100"), .init(name: "gzip", value: "1")]))
            #expect(both.body == expected)
        }
    }

    @Test("a connection closed mid-body is an error, never a truncated success", arguments: Backend.allCases)
    func truncatedBody(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let truncated = await transportError { try await client.send(server.request("/truncate/100000")) }
            let dropped = await transportError { try await client.send(server.request("/drop")) }
            #expect(truncated?.code == .connectionLost, "\(String(describing: truncated))")
            #expect(dropped?.code == .connectionLost, "\(String(describing: dropped))")
            // The client still works afterwards.
            let after = try await client.send(server.request("/echo"))
            #expect(after.status == 200)
        }
    }

    @Test(
        "lost connections, TLS failures and non-HTTP replies classify the same on every backend",
        arguments: Backend.allCases)
    func oneClassification(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let truncated = await transportError { try await client.send(server.request("/truncate/100000")) }
            #expect(truncated?.code == .connectionLost, "\(String(describing: truncated))")
            #expect(truncated?.isRetryable == true)
            let dropped = await transportError { try await client.send(server.request("/drop")) }
            #expect(dropped?.code == .connectionLost, "\(String(describing: dropped))")
            #expect(dropped?.isRetryable == true)
            var https = server.request("/echo")
            https.scheme = "https"
            let tls = await transportError { try await client.send(https) }
            #expect(tls?.code == .tls, "\(String(describing: tls))")
        }
        let garbage = try RawReplyServer(reply: Array("SSH-2.0-OpenSSH_9.2\r\nnot http at all\r\n".utf8))
        defer { garbage.stop() }
        let request = HTTPRequest(
            method: .get, scheme: "http", host: "127.0.0.1", port: garbage.port, path: "/echo",
            timeout: .seconds(5))
        let notHTTP = await transportError { try await client.send(request) }
        #expect(
            notHTTP?.code == .invalidResponse,
            "\(String(describing: notHTTP)) \(String(describing: notHTTP?.underlying))")
    }

    @Test("a backend's cause never carries the request URL (it holds the token)", arguments: Backend.allCases)
    func causeHasNoURL(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let secret = "SECRET-TOKEN-42"
            let request = server.request("/drop", query: [HTTPQueryItem(name: "auth", value: secret)])
            let error = await transportError { try await client.send(request) }
            let cause = try #require(error?.underlying)
            #expect(!"\(cause)".contains(secret))
            #expect(!String(reflecting: cause).contains(secret))
            #expect(!"\(try #require(error))".contains(secret))
        }
    }

    @Test("a refused connection fails with cannotConnect", arguments: Backend.allCases)
    func connectionRefused(backend: Backend) async throws {
        let client = try backend.makeClient()
        let server = try await LoopbackServer.start()
        await server.server.stop()
        let error = await transportError { try await client.send(server.request("/echo")) }
        #expect(error?.code == .cannotConnect)
        #expect(error?.isRetryable == true)
    }

    @Test("a request slower than its timeout fails with timedOut", arguments: Backend.allCases)
    func clientTimeout(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let error = await transportError {
                try await client.send(server.request("/delay/10000", timeout: .milliseconds(300)))
            }
            #expect(error?.code == .timedOut)
        }
    }

    @Test(
        "a request's own timeout outlasts the client's default (a long-poll longer than the default)",
        arguments: Backend.allCases)
    func perRequestTimeoutBeyondDefault(backend: Backend) async throws {
        // The default stands in for the 60 s resource cap that would cut a 310 s subscribe long-poll.
        let client = try backend.makeClient(HTTPClientConfiguration(defaultTimeout: .milliseconds(400)))
        try await LoopbackServer.with { server in
            let response = try await client.send(server.request("/delay/1200", timeout: .seconds(20)))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "delayed")
            // Control: without a timeout of its own the same request is held to the default.
            let error = await transportError { try await client.send(server.request("/delay/1200")) }
            #expect(error?.code == .timedOut)
        }
    }

    @Test("a failure keeps the backend's own error as its cause", arguments: Backend.allCases)
    func underlyingCause(backend: Backend) async throws {
        let client = try backend.makeClient()
        let server = try await LoopbackServer.start()
        await server.server.stop()
        let error = await transportError { try await client.send(server.request("/echo")) }
        let cause = try #require(error?.underlying)
        switch backend {
        case .curl: #expect((cause as? LibcurlError)?.code == 7)
        case .urlSession: #expect(cause is URLError)
        }
    }

    @Test("cancelling a held request aborts it promptly", arguments: Backend.allCases)
    func cancelHeldRequest(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let clock = ContinuousClock()
            let task = Task { () -> (TransportError?, ContinuousClock.Instant) in
                do {
                    _ = try await client.send(server.request("/hold", timeout: .seconds(600)))
                    return (nil, clock.now)
                } catch {
                    return (error as? TransportError, clock.now)
                }
            }
            await server.waitForRequest(pathPrefix: "/hold")
            let cancelled = clock.now
            task.cancel()
            let (error, finished) = await task.value
            let latency = cancelled.duration(to: finished)
            print("[\(backend.rawValue)] cancellation of a held request took \(latency)")
            #expect(error?.code == .cancelled)
            // The goal is 100 ms; the bound is generous because two cores are shared by many builds.
            #expect(latency < .seconds(1))
        }
    }

    @Test("held requests do not stop other requests", arguments: Backend.allCases)
    func heldRequestsDoNotBlock(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let held = (0..<6).map { _ in
                Task { try await client.send(server.request("/hold", timeout: .seconds(600))) }
            }
            for _ in held { await server.waitForRequest(pathPrefix: "/hold") }
            let response = try await client.send(server.request("/echo"))
            #expect(response.status == 200)
            for task in held { task.cancel() }
            for task in held { _ = try? await task.value }
        }
    }

    @Test("requests cancelled at any stage end as cancelled and leave the client working", arguments: Backend.allCases)
    func cancellationRaces(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let tasks = (0..<60).map { index in
                Task { () -> Result<Int, TransportError> in
                    // Spread the cancellations over before, during and after submission.
                    for _ in 0..<(index % 4) { await Task.yield() }
                    do {
                        return .success(try await client.send(server.request("/delay/\(index % 3 * 10)")).status)
                    } catch let error as TransportError {
                        return .failure(error)
                    } catch {
                        return .failure(TransportError(code: .other, message: "\(error)"))
                    }
                }
            }
            for (index, task) in tasks.enumerated() where index.isMultiple(of: 2) { task.cancel() }
            for (index, task) in tasks.enumerated() {
                switch await task.value {
                case .success(let status):
                    #expect(status == 200)
                case .failure(let error):
                    #expect(error.code == .cancelled, "request \(index): \(error)")
                    #expect(index.isMultiple(of: 2), "request \(index) was not cancelled but failed: \(error)")
                }
            }
            let after = try await client.send(server.request("/echo"))
            #expect(after.status == 200)
        }
    }

    @Test("100 parallel requests all succeed with their own answers", arguments: Backend.allCases)
    func parallelRequests(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<100 {
                    group.addTask {
                        let request = server.request("/echo", query: [.init(name: "i", value: String(index))])
                        return (index, try Echo(try await client.send(request)).query)
                    }
                }
                var answers: [Int: String?] = [:]
                for try await (index, query) in group { answers[index] = query }
                return answers
            }
            #expect(answers.count == 100)
            for (index, query) in answers { #expect(query == "i=\(index)") }
        }
    }

    @Test("sequential requests reuse one kept-alive connection", arguments: Backend.allCases)
    func keepAlive(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            for index in 0..<30 {
                let response = try await client.send(
                    server.request("/echo", query: [.init(name: "n", value: "\(index)")]))
                #expect(response.status == 200)
            }
            let statistics = server.server.statistics
            #expect(statistics.requestsReceived == 30)
            #expect(statistics.connectionsAccepted <= 2)
        }
    }

    @Test("HTTPS to a plain HTTP server fails with a TLS error", arguments: Backend.allCases)
    func httpsIsVerified(backend: Backend) async throws {
        let client = try backend.makeClient()
        try await LoopbackServer.with { server in
            var request = server.request("/echo")
            request.scheme = "https"
            let error = await transportError { try await client.send(request) }
            #expect(error?.code == .tls, "\(String(describing: error))")
        }
    }
}
