import Foundation
import JSONCore

/// A ready-made ``ServerHandler`` for testing HTTP clients against the emulator's server: it
/// echoes requests, returns bodies of any size, chunked or gzip-compressed responses, any status,
/// holds requests until cancelled, and injects faults such as a connection closed mid-body.
///
/// It serves these routes (any method; the target's path decides):
///
/// | path | response |
/// |---|---|
/// | `/echo` (and anything below it) | `200`, a JSON object describing the request: `method`, `target`, `path`, `query`, `headers` (array of `{"name", "value"}` in order received), `body` (UTF-8 text, lossy), `bodyBase64`, `bodyLength`, `bodyCRC32` (see ``checksum(_:)``); with query `omitBody=1`, `body` and `bodyBase64` are left out (for large uploads) |
/// | `/bytes/{n}` | `200`, `n` bytes of `abc…xyzabc…` (`application/octet-stream`) |
/// | `/status/{code}` | status `code` with body `status {code}` (no body for 204 and 304) |
/// | `/delay/{ms}` | waits `ms` milliseconds (ends early if cancelled), then `200` `delayed` |
/// | `/hold` | never answers: suspends until its task is cancelled (client gone or server stopped) |
/// | `/drop` | closes the connection without a response |
/// | `/truncate/{n}` | announces `n` body bytes, sends `sent` of them (query `sent`, default `n / 2`), closes |
/// | anything else | `404` with body `not found` |
///
/// Query modifiers apply to any route: `chunked={size}` sends the body chunked in chunks of `size`
/// bytes; `gzip=1` compresses the body with gzip (`Content-Encoding: gzip`); `close=1` answers
/// with `Connection: close`; `header={name}:{value}` (percent-encoded, repeatable) adds a
/// response header.
///
/// Pass an `observer` to learn when handling starts, finishes and is cancelled, for example to
/// wait (without sleeping) until a held request has reached the handler:
///
/// ```swift
/// let (events, continuation) = AsyncStream<HTTPTestingHandler.Event>.makeStream()
/// let handler = HTTPTestingHandler { continuation.yield($0) }
/// ```
public struct HTTPTestingHandler: ServerHandler {
    /// Something that happened while handling a request.
    public enum Event: Sendable {
        /// A request reached the handler.
        case started(ServerRequest)
        /// The handler produced a response for the request (before the server writes it).
        case finished(ServerRequest, status: Int)
        /// The request's task was cancelled while the handler was waiting (`/hold`, `/delay`).
        case cancelled(ServerRequest)
    }

    private let observer: (@Sendable (Event) -> Void)?

    /// Creates the handler; `observer`, when given, is called for every ``Event``, on the
    /// handler's task (keep it quick and thread-safe).
    public init(observer: (@Sendable (Event) -> Void)? = nil) {
        self.observer = observer
    }

    /// Answers `request` according to the routes described on the type.
    public func handle(_ request: ServerRequest) async -> ServerResponse {
        observer?(.started(request))
        var response = await route(request)
        response = applyModifiers(to: response, query: Self.queryItems(request.rawQuery))
        if Task.isCancelled && response.fault != .dropConnection {
            observer?(.cancelled(request))
        } else {
            observer?(.finished(request, status: response.status))
        }
        return response
    }

    private func route(_ request: ServerRequest) async -> ServerResponse {
        let segments = request.rawPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let query = Self.queryItems(request.rawQuery)
        switch (segments.first, segments.count) {
        case ("echo", _):
            return Self.echo(request, includesBody: !query.contains { $0.name == "omitBody" && $0.value == "1" })
        case ("bytes", 2):
            guard let count = Int(segments[1]), count >= 0 else { return Self.text(400, "invalid byte count") }
            return ServerResponse(
                status: 200, headers: [(name: "Content-Type", value: "application/octet-stream")],
                body: Self.pattern(count))
        case ("status", 2):
            guard let code = Int(segments[1]), (200...999).contains(code) else {
                return Self.text(400, "invalid status")
            }
            if code == 204 || code == 304 { return ServerResponse(status: code) }
            return Self.text(code, "status \(code)")
        case ("delay", 2):
            guard let milliseconds = Int(segments[1]), milliseconds >= 0 else { return Self.text(400, "invalid delay") }
            try? await Task.sleep(for: .milliseconds(milliseconds))
            return Self.text(200, "delayed")
        case ("hold", 1):
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
            }
            return Self.text(503, "cancelled")
        case ("drop", 1):
            return ServerResponse(status: 200).injecting(.dropConnection)
        case ("truncate", 2):
            guard let count = Int(segments[1]), count >= 0 else { return Self.text(400, "invalid byte count") }
            let sent = query.first { $0.name == "sent" }.flatMap { Int($0.value) } ?? count / 2
            return ServerResponse(
                status: 200, headers: [(name: "Content-Type", value: "application/octet-stream")],
                body: Self.pattern(count)
            ).injecting(.truncateBody(sentBytes: sent))
        default:
            return Self.text(404, "not found")
        }
    }

    private func applyModifiers(to response: ServerResponse, query: [(name: String, value: String)]) -> ServerResponse {
        var response = response
        for item in query {
            switch item.name {
            case "gzip" where item.value == "1":
                response = response.gzipped()
            case "chunked":
                if let size = Int(item.value), size > 0 { response = response.chunked(chunkSize: size) }
            case "close" where item.value == "1":
                response.headers.append((name: "Connection", value: "close"))
            case "header":
                if let colon = item.value.firstIndex(of: ":") {
                    let name = String(item.value[..<colon])
                    let value = String(item.value[item.value.index(after: colon)...]).trimmingASCIIWhitespace()
                    response.headers.append((name: name, value: value))
                }
            default:
                break
            }
        }
        return response
    }

    /// `n` bytes cycling through the lowercase alphabet; the body `/bytes/{n}` returns.
    public static func pattern(_ count: Int) -> [UInt8] {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(0, count))
        while bytes.count < count { bytes += alphabet.prefix(count - bytes.count) }
        return bytes
    }

    private static func text(_ status: Int, _ text: String) -> ServerResponse {
        ServerResponse(
            status: status, headers: [(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Array(text.utf8))
    }

    /// The CRC-32 (IEEE 802.3, as in gzip and zip) of `bytes`: the `bodyCRC32` that `/echo` reports,
    /// so a test can check a large upload arrived intact without echoing it back.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        Gzip.crc32(bytes)
    }

    private static func echo(_ request: ServerRequest, includesBody: Bool) -> ServerResponse {
        let headers: [JSONValue] = request.headers.map {
            .object(["name": .string($0.name), "value": .string($0.value)])
        }
        var fields: [String: JSONValue] = [
            "method": .string(request.method),
            "target": .string(request.target),
            "path": .string(request.rawPath),
            "query": .string(request.rawQuery),
            "headers": .array(headers),
            "bodyLength": .int(Int64(request.body.count)),
            "bodyCRC32": .int(Int64(checksum(request.body))),
        ]
        if includesBody {
            fields["body"] = .string(String(decoding: request.body, as: UTF8.self))
            fields["bodyBase64"] = .string(Data(request.body).base64EncodedString())
        }
        let description = JSONValue.object(fields)
        guard let bytes = try? description.jsonBytes(sortedKeys: true) else {
            return text(500, "could not encode the echo")
        }
        return ServerResponse(
            status: 200, headers: [(name: "Content-Type", value: "application/json")], body: bytes)
    }

    /// Splits a raw query into percent-decoded name/value pairs (`+` stays a plus sign).
    static func queryItems(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            return (name: name, value: value)
        }
    }
}

extension HTTPTestingHandler.Event {
    /// The request the event is about.
    public var request: ServerRequest {
        switch self {
        case .started(let request), .finished(let request, _), .cancelled(let request): return request
        }
    }
}
