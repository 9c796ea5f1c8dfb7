import EmulatorHTTP
import Foundation
import Transport

// The cases of `HTTPClientConformance`, grouped by what they exercise. Each starts its own server.

extension HTTPClientConformance {
    /// Requests and answers that must arrive intact.
    static let transferCases: [Case] = [
        Case("methods", "every method reaches the server with its body; HEAD has no body but a length") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                for method in [HTTPMethod.get, .head, .post, .put, .patch, .delete, .options] {
                    let hasBody = [HTTPMethod.post, .put, .patch].contains(method)
                    let body = hasBody ? Array("payload for \(method)".utf8) : nil
                    let response = try await client.send(server.request(method, "/echo/item", body: body))
                    context.expect(response.status == 200, "\(method): status \(response.status)")
                    if method == .head {
                        context.expect(response.body.isEmpty, "HEAD: the answer has a body")
                        context.expect(response.headers["Content-Length"] != nil, "HEAD: no Content-Length")
                    } else {
                        let echo = try EchoReply(response)
                        context.expect(echo.method == method.rawValue, "\(method): server saw \(echo.method ?? "-")")
                        context.expect(echo.path == "/echo/item", "\(method): server saw path \(echo.path ?? "-")")
                        context.expect(echo.body == (body ?? []), "\(method): the body changed on the way")
                    }
                }
            }
        },
        Case("query-encoding", "reserved and non-ASCII query characters arrive exactly as encoded") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                let values = ["plain", "a b", "a+b", "&=?#/", "100%", "é", "日本語", "🙂", "'\"<>[]{}|\\^`", ""]
                for value in values {
                    let query = [HTTPQueryItem(name: "k ey", value: value), HTTPQueryItem(name: "flag", value: nil)]
                    let request = server.request("/echo", query: query)
                    let echo = try EchoReply(try await client.send(request))
                    context.expect(
                        echo.query == request.encodedQuery,
                        "value \(value.debugDescription): sent \(request.encodedQuery), server saw \(echo.query ?? "-")"
                    )
                }
            }
        },
        Case("headers", "request and response headers round-trip, repeated fields included") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                var headers: HTTPHeaders = ["X-Custom": "value with  spaces", "Authorization": "Bearer t0k3n"]
                headers.add(name: "X-Multi", value: "a")
                headers.add(name: "X-Multi", value: "b")
                let query = [HTTPQueryItem(name: "header", value: "X-Reply:hello there")]
                let response = try await client.send(server.request("/echo", query: query, headers: headers))
                let echo = try EchoReply(response)
                context.expect(echo.headerValues("x-custom") == ["value with  spaces"], "X-Custom changed")
                context.expect(echo.headerValues("authorization") == ["Bearer t0k3n"], "Authorization changed")
                // Repeated fields may be sent as one comma-joined field (URLSession does); both are equivalent.
                let multi = echo.headerValues("X-Multi").joined(separator: ",").replacingOccurrences(of: " ", with: "")
                context.expect(multi == "a,b", "X-Multi arrived as \(multi)")
                context.expect(response.headers["x-reply"] == "hello there", "the response header X-Reply is missing")
                context.expect(
                    response.headers["Content-Type"] == "application/json", "the response Content-Type is missing")
            }
        },
        Case("bodies", "empty, 1-byte and 10 MB bodies go both ways unchanged") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                for size in [0, 1, 10 << 20] {
                    let upload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
                    // Large uploads are checked by length and CRC, so the echo stays small.
                    let query = size > 1 ? [HTTPQueryItem(name: "omitBody", value: "1")] : []
                    let echo = try EchoReply(
                        try await client.send(
                            server.request(.post, "/echo", query: query, body: upload, timeout: .seconds(300))))
                    context.expect(echo.bodyLength == size, "upload of \(size): server saw \(echo.bodyLength ?? -1)")
                    context.expect(
                        echo.bodyChecksum == Int(HTTPTestingHandler.checksum(upload)),
                        "upload of \(size): the checksum differs")
                    if size <= 1 { context.expect(echo.body == upload, "upload of \(size) changed") }
                    let download = try await client.send(server.request("/bytes/\(size)", timeout: .seconds(300)))
                    context.expect(download.status == 200, "download of \(size): status \(download.status)")
                    context.expect(download.body == HTTPTestingHandler.pattern(size), "download of \(size) changed")
                }
            }
        },
        Case("statuses", "204 and error statuses come back as responses with their bodies, not errors") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                for status in [204, 400, 403, 404, 409, 429, 500, 503] {
                    let response = try await client.send(server.request("/status/\(status)"))
                    context.expect(response.status == status, "asked for \(status), got \(response.status)")
                    context.expect(
                        response.body == (status == 204 ? [] : Array("status \(status)".utf8)),
                        "status \(status): the body changed")
                }
            }
        },
        Case("gzip-and-chunked", "gzip and chunked answers, alone and together, are decoded") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                let expected = HTTPTestingHandler.pattern(200_000)
                let variants: [(String, [HTTPQueryItem])] = [
                    ("gzip", [.init(name: "gzip", value: "1")]),
                    ("chunked", [.init(name: "chunked", value: "4096")]),
                    ("gzip+chunked", [.init(name: "chunked", value: "100"), .init(name: "gzip", value: "1")]),
                ]
                for (label, query) in variants {
                    let response = try await client.send(server.request("/bytes/200000", query: query))
                    context.expect(response.body == expected, "\(label): the decoded body differs")
                }
            }
        },
        Case("keep-alive", "sequential requests reuse one kept-alive connection") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                for index in 0..<30 {
                    let response = try await client.send(
                        server.request("/echo", query: [.init(name: "n", value: "\(index)")]))
                    context.expect(response.status == 200, "request \(index): status \(response.status)")
                }
                let statistics = server.server.statistics
                context.expect(statistics.requestsReceived == 30, "server saw \(statistics.requestsReceived) requests")
                context.expect(
                    statistics.connectionsAccepted <= 2,
                    "30 sequential requests opened \(statistics.connectionsAccepted) connections")
            }
        },
        Case(
            "closed-after-answer",
            "a server that closes every connection after a complete answer is answered every time, one after another and at once"
        ) { context in
            // No `Connection: close`: the client keeps each connection for reuse and only finds it
            // closed later, while idle or when it tries to reuse it; the next connection usually
            // gets the closed one's descriptor number. The curl backend's poll set must follow.
            let client = try context.client()
            let server = try RawReplyServer(reply: Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8))
            defer { server.stop() }
            let request = server.request("/once", timeout: .seconds(10))
            for index in 0..<40 {
                let response = try await client.send(request)
                context.expect(
                    response.status == 200 && response.body == Array("ok".utf8),
                    "sequential request \(index): status \(response.status)")
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await client.send(request).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            context.expect(statuses == Array(repeating: 200, count: 8), "parallel requests answered \(statuses)")
        },
    ]

    /// Failures that must be reported, and reported the same way on every transport.
    static let failureCases: [Case] = [
        Case("lost-connection", "a connection closed mid-body or before answering is connectionLost and retryable") {
            context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                let truncated = await context.transportError("truncated body") {
                    try await client.send(server.request("/truncate/100000"))
                }
                let dropped = await context.transportError("dropped connection") {
                    try await client.send(server.request("/drop"))
                }
                context.expectCode(truncated, .connectionLost, "truncated body")
                context.expectCode(dropped, .connectionLost, "dropped connection")
                context.expect(truncated?.isRetryable == true, "a truncated body is not retryable")
                context.expect(dropped?.isRetryable == true, "a dropped connection is not retryable")
                let after = try await client.send(server.request("/echo"))
                context.expect(after.status == 200, "the client did not recover: status \(after.status)")
            }
        },
        Case("tls", "HTTPS to a plain HTTP server is a tls failure") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                var request = server.request("/echo")
                request.scheme = "https"
                let error = await context.transportError("https to plain http") { try await client.send(request) }
                context.expectCode(error, .tls, "https to plain http")
            }
        },
        Case("not-http", "a reply that is not HTTP at all is invalidResponse") { context in
            let client = try context.client()
            let garbage = try RawReplyServer(reply: Array("SSH-2.0-OpenSSH_9.2\r\nnot http at all\r\n".utf8))
            defer { garbage.stop() }
            let request = garbage.request("/echo", timeout: .seconds(5))
            let error = await context.transportError("non-HTTP reply") { try await client.send(request) }
            context.expectCode(error, .invalidResponse, "non-HTTP reply")
        },
        Case("no-url-in-errors", "an error's text and cause never carry the request URL (it holds the token)") {
            context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                let secret = "SECRET-TOKEN-42"
                let request = server.request("/drop", query: [HTTPQueryItem(name: "auth", value: secret)])
                let error = await context.transportError("dropped connection") { try await client.send(request) }
                if let error {
                    context.expect(!"\(error)".contains(secret), "the error's description carries the token")
                    if let cause = error.underlying {
                        context.expect(!"\(cause)".contains(secret), "the cause's description carries the token")
                        context.expect(
                            !String(reflecting: cause).contains(secret),
                            "the cause's debug description carries the token")
                    }
                }
            }
        },
        Case("refused", "a refused connection is cannotConnect and retryable") { context in
            let client = try context.client()
            let port = try RefusingPort()
            defer { port.close() }
            let error = await context.transportError("refused") {
                try await client.send(port.request("/echo", timeout: .seconds(10)))
            }
            context.expectCode(error, .cannotConnect, "refused connection")
            context.expect(error?.isRetryable == true, "a refused connection is not retryable")
        },
        Case("timeout", "a request slower than its timeout fails with timedOut") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                let error = await context.transportError("slow answer") {
                    try await client.send(server.request("/delay/10000", timeout: .milliseconds(300)))
                }
                context.expectCode(error, .timedOut, "slow answer")
            }
        },
        Case(
            "timeout-after-shorter",
            "a timeout still fires when an earlier, shorter one passed without firing, and a shorter one fires under a longer one"
        ) { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                // A quick answer under a short timeout, then a slow one under a longer timeout: the
                // first timer expiry is no longer wanted by the time it comes. On a host loaded
                // enough to hold even the quick answer past its second, it times out instead; that
                // is not what this case checks, and the slow request below must time out either way.
                do {
                    let quick = try await client.send(server.request("/echo", timeout: .seconds(1)))
                    context.expect(quick.status == 200, "the quick request ended with \(quick.status)")
                } catch let error as TransportError where error.code == .timedOut {
                    // (see above)
                }
                let later = await context.transportError("longer timeout after a shorter one") {
                    try await client.send(server.request("/delay/10000", timeout: .milliseconds(1_500)))
                }
                context.expectCode(later, .timedOut, "longer timeout after a shorter one")
                // A held request with a long timeout, and under it one with a short timeout.
                let held = Task { try await client.send(server.request("/delay/10000", timeout: .seconds(30))) }
                let shorter = await context.transportError("shorter timeout under a longer one") {
                    try await client.send(server.request("/delay/10000", timeout: .milliseconds(300)))
                }
                context.expectCode(shorter, .timedOut, "shorter timeout under a longer one")
                held.cancel()
                _ = try? await held.value
            }
        },
        Case("own-timeout", "a request's own timeout outlasts the client's default (a long-poll)") { context in
            // The default stands in for a 60 s resource cap that would cut a 310 s subscribe long-poll.
            let client = try context.client(HTTPClientConfiguration(defaultTimeout: .milliseconds(400)))
            try await HTTPTestServer.with { server in
                let response = try await client.send(server.request("/delay/1200", timeout: .seconds(20)))
                context.expect(response.status == 200, "the long request ended with \(response.status)")
                context.expect(String(decoding: response.body, as: UTF8.self) == "delayed", "the body changed")
                // Control: without a timeout of its own the same request is held to the default.
                let error = await context.transportError("default timeout") {
                    try await client.send(server.request("/delay/1200"))
                }
                context.expectCode(error, .timedOut, "default timeout")
            }
        },
    ]

    /// Cancellation and concurrency.
    static let concurrencyCases: [Case] = [
        Case("cancel-held", "cancelling a held request ends it with cancelled, not held by the server") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                let clock = ContinuousClock()
                let task = Task { () -> (TransportError?, ContinuousClock.Instant) in
                    do {
                        _ = try await client.send(server.request("/hold", timeout: .seconds(600)))
                        return (nil, clock.now)
                    } catch {
                        return (error as? TransportError, clock.now)
                    }
                }
                guard await server.waitForRequest(pathPrefix: "/hold", timeout: .seconds(10)) else {
                    task.cancel()
                    context.expect(false, "a held request never reached the server")
                    return
                }
                let cancelled = clock.now
                task.cancel()
                let (error, finished) = await task.value
                context.expectCode(error, .cancelled, "cancelled held request")
                // The goal is about 100 ms (the benchmarks measure it). The bound only has to tell a
                // cancelled request from one left to the server, which holds it for an hour: on a
                // loaded 2-core machine a cancellation was seen to take just over a second.
                let latency = cancelled.duration(to: finished)
                context.expect(latency < .seconds(10), "cancellation took \(latency)")
            }
        },
        Case("held-do-not-block", "requests held open do not stop other requests") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                let held = (0..<6).map { _ in
                    Task { try await client.send(server.request("/hold", timeout: .seconds(600))) }
                }
                for _ in held {
                    guard await server.waitForRequest(pathPrefix: "/hold", timeout: .seconds(10)) else {
                        for task in held { task.cancel() }
                        context.expect(false, "six held requests never all reached the server")
                        return
                    }
                }
                let response = try await client.send(server.request("/echo"))
                context.expect(response.status == 200, "a request beside six held ones got \(response.status)")
                for task in held { task.cancel() }
                for task in held { _ = try? await task.value }
            }
        },
        Case("cancellation-races", "requests cancelled at any stage end as cancelled and leave the client working") {
            context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
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
                        context.expect(status == 200, "request \(index): status \(status)")
                    case .failure(let error):
                        context.expect(error.code == .cancelled, "request \(index): \(error)")
                        context.expect(
                            index.isMultiple(of: 2), "request \(index) was not cancelled but failed: \(error)")
                    }
                }
                let after = try await client.send(server.request("/echo"))
                context.expect(after.status == 200, "the client did not recover: status \(after.status)")
            }
        },
        Case("parallel", "100 parallel requests all succeed, each with its own answer") { context in
            let client = try context.client()
            try await HTTPTestServer.with { server in
                let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                    for index in 0..<100 {
                        group.addTask {
                            let request = server.request("/echo", query: [.init(name: "i", value: String(index))])
                            return (index, try EchoReply(try await client.send(request)).query)
                        }
                    }
                    var answers: [Int: String?] = [:]
                    for try await (index, query) in group { answers[index] = query }
                    return answers
                }
                context.expect(answers.count == 100, "\(answers.count) of 100 answers arrived")
                for (index, query) in answers {
                    context.expect(query == "i=\(index)", "request \(index) got the answer for \(query ?? "-")")
                }
            }
        },
    ]
}
