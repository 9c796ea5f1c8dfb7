import EmulatorHTTP
import Foundation

/// Cross-origin resource sharing on the service routes, as PubNub's service answers it: browsers
/// run PubNub's JavaScript SDK on any origin, so every answer on a service route carries
/// `Access-Control-Allow-Origin: *` and a preflight (`OPTIONS`) is answered `204` with the
/// methods and headers the SDKs send. No credentials (cookies) are involved: tokens travel in
/// the query, so the wildcard origin is enough.
///
/// Routes under ``excludedPrefix`` (the admin API and the console) never carry a CORS header and
/// keep refusing foreign origins. `Access-Control-Allow-Private-Network` is never sent, so
/// browsers that enforce Private Network Access keep public web sites away from a loopback
/// emulator while pages served from the developer's own machine work.
struct CORSPolicy: Sendable {
    /// Paths at or under this prefix get no CORS headers (the admin routes).
    let excludedPrefix: String

    /// The methods the service routes answer.
    static let allowedMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    /// Request headers the SDKs send on service routes; a preflight asking for others gets them
    /// allowed too (the routes read no header that could widen what a request may do).
    static let allowedHeaders = [
        "Accept", "Accept-Encoding", "Authorization", "Cache-Control", "Content-Encoding", "Content-Type", "If-Match",
        "If-None-Match", "Pragma", "X-Requested-With",
    ]
    /// How long a browser may cache a preflight answer, in seconds.
    static let maxAge = "600"

    /// Whether `path` is a service route (CORS applies).
    func applies(to path: String) -> Bool {
        guard path.hasPrefix(excludedPrefix) else { return true }
        let rest = path.dropFirst(excludedPrefix.count)
        return !(rest.isEmpty || rest.hasPrefix("/") || rest.hasPrefix("?"))
    }

    /// The answer to an `OPTIONS` request on a service route: `204` with the CORS headers.
    func preflight(_ request: ServerRequest) -> ServerResponse {
        var headers = Self.allowedHeaders
        let known = Set(headers.map { $0.lowercased() })
        if let requested = request.header("Access-Control-Request-Headers") {
            for name in requested.split(separator: ",") {
                let token = name.trimmingCharacters(in: .whitespaces)
                // Header names are tokens; anything else is not echoed back.
                guard !token.isEmpty, token.utf8.count <= 64, token.utf8.allSatisfy(Self.isTokenByte),
                    !known.contains(token.lowercased()), !headers.contains(token)
                else { continue }
                headers.append(token)
            }
        }
        return ServerResponse(
            status: 204,
            headers: [
                (name: "Access-Control-Allow-Origin", value: "*"),
                (name: "Access-Control-Allow-Methods", value: Self.allowedMethods),
                (name: "Access-Control-Allow-Headers", value: headers.joined(separator: ", ")),
                (name: "Access-Control-Max-Age", value: Self.maxAge),
                (name: "Allow", value: Self.allowedMethods),
                (name: "Vary", value: "Access-Control-Request-Headers"),
            ])
    }

    /// `response` with the CORS headers of an actual answer added.
    func decorate(_ response: ServerResponse) -> ServerResponse {
        var decorated = response
        decorated.headers.append((name: "Access-Control-Allow-Origin", value: "*"))
        decorated.headers.append((name: "Access-Control-Expose-Headers", value: "*"))
        return decorated
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
