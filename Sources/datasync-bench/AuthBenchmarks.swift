import Auth
import Foundation
import Transport

/// Token parsing and the cost the auth middleware adds to each request.
enum AuthBenchmarks {
    /// The `pam.parse_token` vector of the pub/sub spec.
    static let token =
        "qEF2AkF0GmEI03xDdHRsGDxDcmVzpURjaGFuoWljaGFubmVsLTEY70NncnChb2NoYW5uZWxfZ3JvdXAtMQVDdXNyoENzcGOgRHV1aWShZnV1aWQt"
        + "MRhoQ3BhdKVEY2hhbqFtXmNoYW5uZWwtXFMqJBjvQ2dycKF0XjpjaGFubmVsX2dyb3VwLVxTKiQFQ3VzcqBDc3BjoER1dWlkoWpedXVpZC1cUyok"
        + "GGhEbWV0YaBEdXVpZHR0ZXN0LWF1dGhvcml6ZWQtdXVpZENzaWdYIPpU-vCe9rkpYs87YUrFNWkyNq8CVvmKwEjVinnDrJJc"

    /// Answers every request at once, so only the middleware's work is measured.
    struct InstantClient: HTTPClient {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(status: 200) }
    }

    /// A middleware that only passes the request on: the chain's own cost, as a baseline.
    struct PassThrough: HTTPMiddleware {
        func intercept(
            _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            try await next(request)
        }
    }

    static func run() async throws -> [BenchRow] {
        var rows: [BenchRow] = []
        let batch = Bench.scale(1000, smoke: 20)

        // Baseline: Foundation only turning the same text into bytes (after the alphabet mapping).
        let standard = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let baseline = Bench.throughput(operations: batch) {
            for _ in 0..<batch { precondition(Data(base64Encoded: standard) != nil) }
        }
        let parse = try Bench.throughput(operations: batch) {
            for _ in 0..<batch { _ = try AccessToken(parsing: token) }
        }
        rows.append(
            BenchRow(
                scenario: "parse 320-char token (full typed parse)", unit: "tokens/s", ours: parse,
                baselineName: "Foundation base64 decode only", baseline: baseline))

        let parsed = try AccessToken(parsing: token)
        let exact = Bench.throughput(operations: batch) {
            for _ in 0..<batch { precondition(parsed.allows(.read, on: "channel-1", in: .channels)) }
        }
        let pattern = Bench.throughput(operations: batch) {
            for _ in 0..<batch { precondition(parsed.allows(.read, on: "channel-77", in: .channels)) }
        }
        rows.append(
            BenchRow(
                scenario: "allows(): pattern match (regex)", unit: "checks/s", ours: pattern,
                baselineName: "exact-name match", baseline: exact))

        let request = HTTPRequest(host: "ps.pndsn.com", path: "/v2/subscribe/sub/ch/0")
        let bare = InstantClient()
        let store = TokenStore(token: token)
        let withAuth = bare.with([AuthMiddleware(store: store)])
        let passThrough = bare.with([PassThrough()])
        let plain = try await Bench.throughputAsync(operations: batch) {
            for _ in 0..<batch { _ = try await passThrough.send(request) }
        }
        let authed = try await Bench.throughputAsync(operations: batch) {
            for _ in 0..<batch { _ = try await withAuth.send(request) }
        }
        rows.append(
            BenchRow(
                scenario: "request through AuthMiddleware", unit: "requests/s", ours: authed,
                baselineName: "pass-through middleware", baseline: plain))
        return rows
    }
}
