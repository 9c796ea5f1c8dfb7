import EmulatorHTTP
import JSONCore

/// The answers of the DataSync REST API: data bodies and DataSync's own error envelope.
enum DataSyncResponse {
    /// `{"data": data}` as a `status` answer of `mediaType`.
    static func data(_ data: JSONValue, status: Int = 200, mediaType: String) -> ServerResponse {
        body(["data": data], status: status, mediaType: mediaType)
    }

    /// `value` as a `status` answer of `mediaType` (a 500 in DataSync's error shape if it cannot be
    /// encoded).
    static func body(_ value: JSONValue, status: Int, mediaType: String) -> ServerResponse {
        do {
            let bytes = try value.jsonBytes()
            return ServerResponse(status: status, headers: [("Content-Type", mediaType)], body: bytes)
        } catch {
            return Self.error(APIError(status: 500, code: .internalError, message: "could not encode the response"))
        }
    }

    /// `error` in DataSync's error envelope (`{"errors":[{"errorCode":…}]}`); a 405 says what is allowed.
    static func error(_ error: APIError) -> ServerResponse {
        let bytes = (try? error.envelope.jsonBytes()) ?? Array(#"{"errors":[{"errorCode":"DS-0000"}]}"#.utf8)
        var headers = [("Content-Type", "application/json")]
        if error.status == 405 {
            headers.append(
                ("Allow", (error.allow ?? ["GET", "POST", "PUT", "PATCH", "DELETE"]).joined(separator: ", ")))
        }
        return ServerResponse(status: error.status, headers: headers, body: bytes)
    }
}
