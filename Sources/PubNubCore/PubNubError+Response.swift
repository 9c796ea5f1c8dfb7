import JSONCore
package import PubNubBase

extension PubNubError {
    /// The longest piece of a non-JSON error body kept in ``message``.
    static let bodyExcerptLimit = 200

    /// Maps a service answer whose status is outside 200...299 to an error.
    ///
    /// Understands the DataSync envelope `{"errors":[{"errorCode","message","path"}]}` (items
    /// decoded defensively: any field may be missing), the Access Manager forms
    /// `{"error":true,"status":403,"service":"Access Manager","message":"Forbidden"}`,
    /// `{"status":403,"error":{"message":"…"}}` and `{"status":403,"message":"…"}`, and empty or
    /// non-JSON bodies (the text, shortened, becomes the message).
    package init(statusCode: Int, body: [UInt8]) {
        let reason = Reason.forStatusCode(statusCode)
        let fallback = "the service answered HTTP \(statusCode)"
        guard let json = try? JSONValue(parsing: body), let object = json.objectValue else {
            let text = Self.excerpt(of: body)
            self.init(reason: reason, message: text.isEmpty ? fallback : text, statusCode: statusCode)
            return
        }
        let service = object["service"]?.stringValue
        if let items = object["errors"]?.arrayValue {
            let details = items.map(Self.detail(from:))
            let message =
                details.isEmpty ? fallback : details.map(\.description).joined(separator: "; ")
            self.init(reason: reason, message: message, statusCode: statusCode, details: details, service: service)
            return
        }
        var details: [Detail] = []
        var message: String?
        if let text = object["message"]?.stringValue {
            message = text
        }
        if let error = object["error"]?.objectValue {
            if let text = error["message"]?.stringValue { message = message ?? text }
            if let nested = error["details"]?.arrayValue {
                details = nested.map(Self.detail(from:))
            }
        } else if let text = object["error"]?.stringValue {
            message = message ?? text
        }
        if details.isEmpty, let message {
            details = [Detail(message: message)]
        }
        self.init(
            reason: reason, message: message ?? fallback, statusCode: statusCode, details: details, service: service)
    }

    private static func detail(from item: JSONValue) -> Detail {
        guard let object = item.objectValue else {
            return Detail(message: item.stringValue ?? item.description)
        }
        let code = object["errorCode"]?.stringValue ?? object["code"]?.stringValue
        let path = object["path"]?.stringValue ?? object["location"]?.stringValue
        let message = object["message"]?.stringValue ?? "no message"
        return Detail(errorCode: code, message: message, path: path)
    }

    private static func excerpt(of body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(bodyExcerptLimit * 4), as: UTF8.self)
            .trimmingWhitespace()
        guard text.count > bodyExcerptLimit else { return text }
        return String(text.prefix(bodyExcerptLimit)) + "…"
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
