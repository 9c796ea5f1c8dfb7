import EmulatorHTTP
import JSONCore

/// The admin API's answers: JSON bodies, never cached.
enum AdminWire {
    static let jsonType = "application/json"

    /// `value` as a JSON answer.
    static func json(_ value: JSONValue, status: Int = 200) -> ServerResponse {
        let body = (try? value.jsonBytes()) ?? Array("{}".utf8)
        return ServerResponse(
            status: status,
            headers: [(name: "Content-Type", value: jsonType), (name: "Cache-Control", value: "no-store")],
            body: body)
    }

    /// `{"error":{"status":…,"message":…}}`; a 405 lists the methods the resource supports in
    /// `Allow`.
    static func error(_ status: Int, _ message: String, allow: [String]? = nil) -> ServerResponse {
        var response = json(["error": ["status": .int(Int64(status)), "message": .string(message)]], status: status)
        if let allow { response.headers.append((name: "Allow", value: allow.joined(separator: ", "))) }
        return response
    }

    /// A 405 for `method` on a resource that supports `allow`.
    static func methodNotAllowed(_ method: String, allow: [String]) -> ServerResponse {
        error(405, "\(method) is not allowed here; use \(allow.joined(separator: " or "))", allow: allow)
    }
}
