import JSONCore

/// Turns a handler's ``ServerResponse`` into the bytes the server writes, with framing chosen by
/// the server (never by the handler) so every response is delimited correctly.
enum ResponseSerializer {
    struct Output {
        var bytes: [UInt8]
        /// Whether the connection must close once `bytes` are written.
        var closeAfter: Bool
    }

    /// `announcesKeepAlive` adds `Connection: keep-alive` (HTTP/1.0 clients need it to reuse the connection).
    static func serialize(
        _ response: ServerResponse, method: String, keepAlive: Bool, announcesKeepAlive: Bool = false
    ) -> Output {
        if response.fault?.kind == .dropConnection { return Output(bytes: [], closeAfter: true) }
        var status = response.status
        var body = response.body
        var extraHeaders = response.headers
        if !(200...999).contains(status) {
            // Interim (1xx) responses are the server's business, not a handler's.
            status = 500
            body = Array("handler returned invalid status \(response.status)".utf8)
            extraHeaders = [(name: "Content-Type", value: "text/plain; charset=utf-8")]
        }
        var closeAfter = !keepAlive
        // The head is built as bytes in one buffer that also takes the body, so the response
        // leaves in one `send` and costs one allocation.
        let reason = reasonPhrase(status)
        var headerBytes = 0
        for field in extraHeaders { headerBytes += field.name.utf8.count + field.value.utf8.count + 4 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + reason.utf8.count + headerBytes + body.count)
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: reason.utf8)
        bytes.append(contentsOf: crlf)
        for field in extraHeaders {
            if ServerRequest.equalIgnoringASCIICase(field.name, "connection") {
                if field.value.lowercased().split(separator: ",").contains(where: {
                    $0.trimmingASCIIWhitespace() == "close"
                }) {
                    closeAfter = true
                }
                continue
            }
            guard !isServerOwned(field.name), isValidName(field.name), isValidValue(field.value) else { continue }
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: field.value.utf8)
            bytes.append(contentsOf: crlf)
        }
        var truncateAt: Int?
        if case .truncateBody(let sent) = response.fault?.kind {
            truncateAt = sent
            closeAfter = true
        }
        let hasNoBody = status == 204 || status == 304
        let omitsBody = hasNoBody || method == "HEAD"
        let chunkSize = response.framing.chunkSize
        if !hasNoBody {
            if chunkSize != nil {
                bytes.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
            } else {
                bytes.append(contentsOf: "Content-Length: ".utf8)
                appendDecimal(body.count, to: &bytes)
                bytes.append(contentsOf: crlf)
            }
        }
        if closeAfter {
            bytes.append(contentsOf: "Connection: close\r\n".utf8)
        } else if announcesKeepAlive {
            bytes.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        bytes.append(contentsOf: crlf)
        guard !omitsBody else { return Output(bytes: bytes, closeAfter: closeAfter) }
        let sentBody = truncateAt.map { min($0, body.count) } ?? body.count
        if let chunkSize {
            var offset = 0
            bytes.reserveCapacity(bytes.count + sentBody + (sentBody / chunkSize + 2) * 12)
            while offset < sentBody {
                let count = min(chunkSize, sentBody - offset)
                bytes += Array(String(count, radix: 16).utf8) + [13, 10]
                bytes += body[offset..<(offset + count)]
                bytes += [13, 10]
                offset += count
            }
            if truncateAt == nil { bytes += Array("0\r\n\r\n".utf8) }
        } else if sentBody == body.count {
            bytes.append(contentsOf: body)
        } else {
            bytes += body[0..<sentBody]
        }
        return Output(bytes: bytes, closeAfter: closeAfter)
    }

    private static let crlf: [UInt8] = [13, 10]

    /// Whether `name` is one of the headers the server sets itself (`Content-Length`,
    /// `Transfer-Encoding`, `Connection`), compared without regard to ASCII case.
    private static func isServerOwned(_ name: String) -> Bool {
        ServerRequest.equalIgnoringASCIICase(name, "content-length")
            || ServerRequest.equalIgnoringASCIICase(name, "transfer-encoding")
            || ServerRequest.equalIgnoringASCIICase(name, "connection")
    }

    /// Appends the decimal digits of `value`, which is not negative (a status or a length).
    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
        }
    }

    /// The response for a request the server itself rejects; always closes the connection.
    /// A request the server refused itself, answered with a JSON body (PubNub SDKs parse every
    /// error body as JSON): `{"message":…,"error":true,"service":"Balancer","status":…}`, with the
    /// message `Request URI Too Long` for 414 as PubNub's balancer sends it.
    static func failure(_ failure: RequestFailure) -> [UInt8] {
        let message = failure.status == 414 ? "Request URI Too Long" : failure.message
        let fields: [String: JSONValue] = [
            "message": .string(message), "error": true, "service": "Balancer", "status": .int(Int64(failure.status)),
        ]
        let body = (try? JSONValue.object(fields).jsonBytes()) ?? Array("{}".utf8)
        let retryAfter = failure.retryAfterSeconds.map { "Retry-After: \($0)\r\n" } ?? ""
        let head =
            "HTTP/1.1 \(failure.status) \(reasonPhrase(failure.status))\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\(retryAfter)Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    private static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(RequestParser.isTokenByte)
    }

    private static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy(RequestParser.isFieldValueByte)
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
