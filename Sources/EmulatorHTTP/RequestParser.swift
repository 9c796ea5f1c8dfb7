import JSONCore

/// A request that cannot be accepted, with the status code the server answers before closing.
package struct RequestFailure: Error, Equatable {
    package var status: Int
    package var message: String
    /// Seconds for a `Retry-After` field (503 answers), or nil for none.
    package var retryAfterSeconds: Int? = nil

    static func badRequest(_ message: String) -> RequestFailure { RequestFailure(status: 400, message: message) }
}

/// How a request body is delimited.
package enum RequestBodyKind: Equatable {
    case none
    case length(Int)
    case chunked
}

/// The parsed request line and header section.
package struct RequestHead {
    package var method: String
    package var target: String
    package var minorVersion: Int
    package var headers: [(name: String, value: String)]
    /// Whether the connection may carry another request after this one.
    package var keepAlive: Bool
    package var body: RequestBodyKind
    /// Whether the client sent `Expect: 100-continue` and waits for an interim response.
    package var expectsContinue: Bool
}

/// An incremental, strict HTTP/1.1 request parser over a byte buffer that grows as data arrives.
///
/// The parser never copies the buffer; it reads from `readIndex` and advances it past whatever it
/// consumed, so the owner may drop consumed bytes between calls. Offsets it keeps are relative to
/// `readIndex`, which stays put while a head or a line is incomplete.
package struct RequestParser {
    package struct Limits {
        package var requestLine: Int
        package var headers: Int
        package var body: Int

        package init(requestLine: Int, headers: Int, body: Int) {
            self.requestLine = requestLine
            self.headers = headers
            self.body = body
        }
    }

    package enum Progress {
        /// More bytes are needed.
        case needMore
        /// The head is complete and a body follows; call again as bytes arrive.
        case headReceived(RequestHead)
        /// The request is complete; `reset()` before parsing the next one.
        case complete(RequestHead, body: [UInt8])
    }

    private enum State {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytes: Int)
        case done
    }

    /// The longest chunk-size line (size plus extensions) accepted.
    static let maximumChunkLineBytes = 4096

    package let limits: Limits
    private var state = State.head
    /// Bytes after `readIndex` already examined by the current head or line scan.
    private var scanOffset = 0
    /// Offset of the current line's first byte during the head scan.
    private var lineStart = 0
    /// The request line's length without CRLF, once its end has been seen.
    private var requestLineLength: Int?
    private var head: RequestHead?
    private var body: [UInt8] = []

    package init(limits: Limits) {
        self.limits = limits
    }

    /// Whether no byte of a request has been consumed or scanned yet.
    package var isAtRequestStart: Bool {
        if case .head = state { return scanOffset == 0 && requestLineLength == nil }
        return false
    }

    /// Bytes of memory the body being received holds (its reserved storage).
    var bodyBufferBytes: Int { body.capacity }

    /// Heap bytes the parser keeps for the request it parsed last (its head and body), until
    /// ``reset()``.
    var retainedBytes: Int { body.capacity + (head.map(Self.retainedBytes(of:)) ?? 0) }

    /// About the heap bytes `head` keeps: its target and header strings (those too long to be
    /// stored inline) and the header array's storage. An estimate for tests and statistics.
    static func retainedBytes(of head: RequestHead) -> Int {
        func bytes(_ text: String) -> Int { text.utf8.count > 15 ? text.utf8.count : 0 }
        var total = bytes(head.target) + bytes(head.method) + head.headers.capacity * 32
        for field in head.headers { total += bytes(field.name) + bytes(field.value) }
        return total
    }

    /// Prepares for the next request on the same connection.
    package mutating func reset() {
        state = .head
        scanOffset = 0
        lineStart = 0
        requestLineLength = nil
        head = nil
        body = []
    }

    package mutating func parse(_ buffer: [UInt8], readIndex: inout Int) throws(RequestFailure) -> Progress {
        while true {
            switch state {
            case .done:
                return .needMore
            case .head:
                guard let parsed = try scanHead(buffer, readIndex: &readIndex) else { return .needMore }
                head = parsed
                switch parsed.body {
                case .none:
                    state = .done
                    return .complete(parsed, body: [])
                case .length(let length):
                    // The body's storage is reserved when its first byte arrives, so the server
                    // can refuse a head whose declared length does not fit its buffer budget
                    // before any memory is committed to it.
                    state = .fixedBody(remaining: length)
                case .chunked:
                    state = .chunkSize
                }
                return .headReceived(parsed)
            case .fixedBody(let remaining):
                let count = min(remaining, buffer.count - readIndex)
                guard count > 0 else { return .needMore }
                if body.isEmpty { body.reserveCapacity(remaining) }
                body.append(contentsOf: buffer[readIndex..<(readIndex + count)])
                readIndex += count
                if count == remaining { return finish() }
                state = .fixedBody(remaining: remaining - count)
                return .needMore
            case .chunkSize:
                guard
                    let lineEnd = try nextLine(
                        buffer, readIndex: readIndex, limit: Self.maximumChunkLineBytes,
                        tooLong: .badRequest("chunk size line too long"))
                else { return .needMore }
                let size = try parseChunkSize(buffer[readIndex..<lineEnd])
                readIndex = lineEnd + 2
                if size == 0 {
                    state = .trailers(bytes: 0)
                } else {
                    guard size <= limits.body - body.count else {
                        throw RequestFailure(status: 413, message: "request body exceeds \(limits.body) bytes")
                    }
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let count = min(remaining, buffer.count - readIndex)
                body.append(contentsOf: buffer[readIndex..<(readIndex + count)])
                readIndex += count
                guard count == remaining else {
                    state = .chunkData(remaining: remaining - count)
                    return .needMore
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard buffer.count - readIndex >= 2 else { return .needMore }
                guard buffer[readIndex] == Self.cr, buffer[readIndex + 1] == Self.lf else {
                    throw .badRequest("chunk data not followed by CRLF")
                }
                readIndex += 2
                state = .chunkSize
            case .trailers(let bytes):
                let remainingLimit = limits.headers - bytes
                guard
                    let lineEnd = try nextLine(
                        buffer, readIndex: readIndex, limit: remainingLimit,
                        tooLong: RequestFailure(status: 431, message: "trailer section too large"))
                else { return .needMore }
                let line = buffer[readIndex..<lineEnd]
                readIndex = lineEnd + 2
                if line.isEmpty { return finish() }
                _ = try Self.parseField(line)
                state = .trailers(bytes: bytes + line.count + 2)
            }
        }
    }

    private mutating func finish() -> Progress {
        state = .done
        let completed = body
        body = []
        guard let head else { return .needMore }
        return .complete(head, body: completed)
    }

    /// Finds the end of the next CRLF-terminated line starting at `readIndex`, resuming the scan
    /// where the previous call stopped. Returns the index of its CR, or nil if more bytes are needed.
    private mutating func nextLine(
        _ buffer: [UInt8], readIndex: Int, limit: Int, tooLong: RequestFailure
    ) throws(RequestFailure) -> Int? {
        while readIndex + scanOffset < buffer.count {
            if buffer[readIndex + scanOffset] == Self.lf {
                guard scanOffset > 0, buffer[readIndex + scanOffset - 1] == Self.cr else {
                    throw .badRequest("line ends with a bare LF")
                }
                let end = readIndex + scanOffset - 1
                scanOffset = 0
                return end
            }
            scanOffset += 1
            if scanOffset > limit + 1 { throw tooLong }
        }
        return nil
    }

    private mutating func scanHead(_ buffer: [UInt8], readIndex: inout Int) throws(RequestFailure) -> RequestHead? {
        while readIndex + scanOffset < buffer.count {
            if buffer[readIndex + scanOffset] == Self.lf {
                guard scanOffset > lineStart, buffer[readIndex + scanOffset - 1] == Self.cr else {
                    throw .badRequest("line ends with a bare LF")
                }
                let lineEnd = scanOffset - 1
                if let requestLineLength {
                    if lineEnd == lineStart {
                        let headEnd = readIndex + scanOffset + 1
                        let parsed = try Self.parseHead(
                            buffer[readIndex..<headEnd], requestLineLength: requestLineLength, limits: limits)
                        readIndex = headEnd
                        scanOffset = 0
                        lineStart = 0
                        self.requestLineLength = nil
                        return parsed
                    }
                } else if lineEnd == 0 {
                    // RFC 9112 section 2.2: ignore empty lines received before a request line.
                    readIndex += 2
                    scanOffset = 0
                    continue
                } else {
                    if lineEnd > limits.requestLine {
                        throw RequestFailure(status: 414, message: "request line exceeds \(limits.requestLine) bytes")
                    }
                    requestLineLength = lineEnd
                }
                lineStart = scanOffset + 1
            }
            scanOffset += 1
            if let requestLineLength {
                if scanOffset - (requestLineLength + 2) > limits.headers {
                    throw RequestFailure(status: 431, message: "header section exceeds \(limits.headers) bytes")
                }
            } else if scanOffset > limits.requestLine + 1 {
                throw RequestFailure(status: 414, message: "request line exceeds \(limits.requestLine) bytes")
            }
        }
        return nil
    }

    // MARK: - Head parsing

    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    private static let space: UInt8 = 32
    private static let tab: UInt8 = 9
    private static let colon: UInt8 = 58

    /// `tchar` from RFC 9110 section 5.6.2.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Field-value bytes: visible ASCII, space, tab and obs-text; never CR, LF, NUL or other controls.
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= space && byte != 127)
    }

    private static func parseHead(
        _ bytes: ArraySlice<UInt8>, requestLineLength: Int, limits: Limits
    ) throws(RequestFailure) -> RequestHead {
        let start = bytes.startIndex
        let requestLine = bytes[start..<(start + requestLineLength)]
        var (method, target, minorVersion) = try parseRequestLine(requestLine)
        var headers: [(name: String, value: String)] = []
        var lineStart = start + requestLineLength + 2
        let end = bytes.endIndex - 2
        while lineStart < end {
            // The scan guaranteed every LF follows a CR; a CR anywhere else stays in the line
            // and is rejected as an invalid field character.
            var lineFeed = lineStart
            while bytes[lineFeed] != lf { lineFeed += 1 }
            headers.append(try parseField(bytes[lineStart..<(lineFeed - 1)]))
            lineStart = lineFeed + 1
        }
        if minorVersion > 1 { minorVersion = 1 }
        return try interpret(
            method: method, target: target, minorVersion: minorVersion, headers: headers, limits: limits)
    }

    private static func parseRequestLine(
        _ line: ArraySlice<UInt8>
    ) throws(RequestFailure) -> (String, String, Int) {
        guard let firstSpace = line.firstIndex(of: space), let lastSpace = line.lastIndex(of: space),
            firstSpace < lastSpace
        else { throw .badRequest("malformed request line") }
        let method = line[line.startIndex..<firstSpace]
        let target = line[(firstSpace + 1)..<lastSpace]
        let version = line[(lastSpace + 1)...]
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else { throw .badRequest("malformed method") }
        guard !target.isEmpty, target.allSatisfy({ $0 > space && $0 < 127 }) else {
            throw .badRequest("malformed request target")
        }
        let targetText = String(decoding: target, as: UTF8.self)
        guard targetText.hasPrefix("/") || targetText == "*" || targetText.contains("://") else {
            throw .badRequest("unsupported request-target form")
        }
        let at = version.startIndex
        guard version.count == 8, version[at..<(at + 5)].elementsEqual("HTTP/".utf8), version[at + 6] == 46,
            let major = digit(version[at + 5]), let minor = digit(version[at + 7])
        else { throw .badRequest("malformed HTTP version") }
        guard major == 1 else { throw RequestFailure(status: 505, message: "HTTP/\(major).\(minor) is not supported") }
        return (String(decoding: method, as: UTF8.self), targetText, minor)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= 48 && byte <= 57 ? Int(byte - 48) : nil
    }

    static func parseField(_ line: ArraySlice<UInt8>) throws(RequestFailure) -> (name: String, value: String) {
        guard let first = line.first, first != space, first != tab else {
            throw .badRequest("obsolete line folding or empty field line")
        }
        guard let colonIndex = line.firstIndex(of: colon) else { throw .badRequest("field line without a colon") }
        let name = line[line.startIndex..<colonIndex]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw .badRequest("malformed field name") }
        var value = line[(colonIndex + 1)...]
        while let byte = value.first, byte == space || byte == tab { value = value.dropFirst() }
        while let byte = value.last, byte == space || byte == tab { value = value.dropLast() }
        guard value.allSatisfy(isFieldValueByte) else { throw .badRequest("invalid character in field value") }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    private static func tokens(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map {
            $0.trimmingASCIIWhitespace().lowercased()
        }.filter { !$0.isEmpty }
    }

    private static func interpret(
        method: String, target: String, minorVersion: Int, headers: [(name: String, value: String)], limits: Limits
    ) throws(RequestFailure) -> RequestHead {
        var hostCount = 0
        var lengths: [String] = []
        var transferCodings: [String] = []
        var connection: [String] = []
        var expectations: [String] = []
        // Names compared byte by byte, ignoring ASCII case (no lowercased copy of each name).
        for field in headers {
            let name = field.name
            if ServerRequest.equalIgnoringASCIICase(name, "host") {
                hostCount += 1
            } else if ServerRequest.equalIgnoringASCIICase(name, "content-length") {
                lengths.append(field.value)
            } else if ServerRequest.equalIgnoringASCIICase(name, "transfer-encoding") {
                transferCodings.append(field.value)
            } else if ServerRequest.equalIgnoringASCIICase(name, "connection") {
                connection.append(field.value)
            } else if ServerRequest.equalIgnoringASCIICase(name, "expect") {
                expectations.append(field.value)
            }
        }
        if minorVersion == 1 && hostCount != 1 {
            throw .badRequest(hostCount == 0 ? "HTTP/1.1 request without Host" : "more than one Host field")
        }
        if hostCount > 1 { throw .badRequest("more than one Host field") }

        var bodyKind = RequestBodyKind.none
        if !transferCodings.isEmpty {
            guard minorVersion == 1 else { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            guard lengths.isEmpty else { throw .badRequest("both Content-Length and Transfer-Encoding") }
            guard tokens(transferCodings) == ["chunked"] else {
                throw RequestFailure(status: 501, message: "only the chunked transfer coding is supported")
            }
            bodyKind = .chunked
        } else if !lengths.isEmpty {
            let values = lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map { $0.trimmingASCIIWhitespace() }
            guard let first = values.first, values.allSatisfy({ $0 == first }), !first.isEmpty,
                first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
            else { throw .badRequest("invalid Content-Length") }
            guard let length = Int(first), length <= limits.body else {
                throw RequestFailure(status: 413, message: "request body exceeds \(limits.body) bytes")
            }
            if length > 0 { bodyKind = .length(length) }
        }

        var expectsContinue = false
        if !expectations.isEmpty {
            guard tokens(expectations) == ["100-continue"] else {
                throw RequestFailure(status: 417, message: "unsupported expectation")
            }
            expectsContinue = minorVersion == 1 && bodyKind != .none
        }

        let connectionTokens = tokens(connection)
        let keepAlive: Bool
        if connectionTokens.contains("close") {
            keepAlive = false
        } else {
            keepAlive = minorVersion == 1 || connectionTokens.contains("keep-alive")
        }
        return RequestHead(
            method: method, target: target, minorVersion: minorVersion, headers: headers, keepAlive: keepAlive,
            body: bodyKind, expectsContinue: expectsContinue)
    }

    private func parseChunkSize(_ line: ArraySlice<UInt8>) throws(RequestFailure) -> Int {
        var size = 0
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, let value = HexDigit.value(line[index]) {
            digits += 1
            guard digits <= 15 else { throw RequestFailure(status: 413, message: "chunk size too large") }
            size = size * 16 + Int(value)
            index += 1
        }
        guard digits > 0 else { throw .badRequest("malformed chunk size") }
        var rest = line[index...]
        while let byte = rest.first, byte == Self.space || byte == Self.tab { rest = rest.dropFirst() }
        if let byte = rest.first {
            guard byte == UInt8(ascii: ";"), rest.allSatisfy(Self.isFieldValueByte) else {
                throw .badRequest("malformed chunk extension")
            }
        }
        return size
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingASCIIWhitespace() -> String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
