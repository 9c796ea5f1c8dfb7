import EmulatorHTTP
import Foundation
import JSONCore

/// Reading and checking a DataSync request's body and headers: the rules every object and class
/// endpoint shares, as pure functions (no store, no clock), so a write path and the state-file
/// loader check an id or a status the same way.
enum RequestBody {
    /// The longest id, in Unicode scalars (so at most 1,020 UTF-8 bytes).
    static let maximumIdLength = 255
    /// The longest `status`, in Unicode scalars (so at most 400 UTF-8 bytes).
    static let maximumStatusLength = 100

    /// Accepts the request's Content-Type when its media type is `expected` (parameters other
    /// than `version=1` are ignored; a different version is refused).
    static func checkMediaType(_ request: ServerRequest, expected: String) throws(APIError) {
        let header = request.header("Content-Type")
        if header == expected { return }
        let expectedType = expected.split(separator: ";")[0].lowercased()
        guard let header else {
            throw APIError(
                status: 415, code: .invalidValue, message: "Content-Type must be \(expected)", path: "Content-Type")
        }
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let versionParameter = parts.dropFirst().first { $0.hasPrefix("version=") }
        guard parts.first == expectedType, versionParameter == nil || versionParameter == "version=1" else {
            throw APIError(
                status: 415, code: .invalidValue, message: "Content-Type must be \(expected), not \(header)",
                path: "Content-Type")
        }
    }

    static func parseBody(_ request: ServerRequest) throws(APIError) -> JSONValue {
        guard !request.body.isEmpty else {
            throw APIError(status: 400, code: .malformedBody, message: "the request has no body")
        }
        do {
            return try JSONValue(parsing: request.body, options: JSONParsingOptions(rejectsDuplicateKeys: true))
        } catch {
            throw APIError(status: 400, code: .malformedBody, message: "the body is not valid JSON: \(error)")
        }
    }

    /// The `data` object of a `{"data":{…}}` body.
    static func dataObject(_ request: ServerRequest) throws(APIError) -> JSONObject {
        let body = try parseBody(request)
        guard let top = body.objectValue else { throw .invalid("the body must be a JSON object", path: "") }
        for key in top.keys.sorted() where key != "data" {
            throw .invalid("unknown field '\(key)'", path: "/" + escape(key))
        }
        guard let data = top["data"], !data.isNull else { throw .missing("/data") }
        guard let object = data.objectValue else { throw .invalid("data must be an object", path: "/data") }
        return object
    }

    static func checkFields(_ data: JSONObject, allowed: Set<String>, prefix: String) throws(APIError) {
        for key in data.keys.sorted() where !allowed.contains(key) {
            throw .invalid("unknown field '\(key)'", path: prefix + "/" + escape(key))
        }
    }

    static func optionalString(_ data: JSONObject, _ key: String, prefix: String) throws(APIError) -> String? {
        guard let value = data[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalid("must be a string", path: prefix + "/" + key) }
        return text
    }

    static func requiredString(_ data: JSONObject, _ key: String, prefix: String) throws(APIError) -> String {
        guard let text = try optionalString(data, key, prefix: prefix) else { throw .missing(prefix + "/" + key) }
        return text
    }

    static func checkId(_ id: String, path: String) throws(APIError) {
        guard !id.isEmpty else { throw .invalid("an id must not be empty", path: path) }
        // Counted in Unicode scalars, not grapheme clusters: one "character" may hold any number
        // of combining marks, so counting characters would not bound the id's size.
        guard id.unicodeScalars.count <= maximumIdLength else {
            throw .invalid("an id is at most \(maximumIdLength) Unicode scalars", path: path)
        }
    }

    static func classVersion(
        _ data: JSONObject, field: String, definition: ClassDefinition, prefix: String
    ) throws(APIError) -> Int {
        guard let value = data[field], !value.isNull else { throw .missing(prefix + "/" + field) }
        guard let number = value.intValue else { throw .invalid("must be an integer", path: prefix + "/" + field) }
        guard definition.version(number) != nil else {
            throw .invalid("class \(definition.name) has no version \(number)", path: prefix + "/" + field)
        }
        return number
    }

    /// `status` (a string of at most 100 characters) and `payload` (an object); absent or null
    /// means none.
    static func statusAndPayload(_ data: JSONObject, prefix: String) throws(APIError) -> (String?, JSONValue?) {
        let status = try optionalString(data, "status", prefix: prefix)
        if let status, status.unicodeScalars.count > maximumStatusLength {
            throw .invalid("status is at most \(maximumStatusLength) Unicode scalars", path: prefix + "/status")
        }
        var payload: JSONValue?
        if let value = data["payload"], !value.isNull {
            guard value.objectValue != nil else {
                throw .invalid("payload must be an object", path: prefix + "/payload")
            }
            payload = value
        }
        return (status, payload)
    }

    /// Checks the values behind the class's declared properties have the declared types.
    static func checkPropertyTypes(
        _ object: StoredObject, registry: ClassRegistry, prefix: String
    ) throws(APIError) {
        let properties = registry.properties(object.kind.space, object.classKey, version: object.classVersion)
        for property in properties.values.sorted(by: { $0.name < $1.name }) {
            guard let tokens = PointerLookup.tokens(property.pointer),
                let value = object.value(atPointerTokens: tokens), !value.isNull
            else { continue }
            guard property.type.accepts(value) else {
                throw .invalid(
                    "property '\(property.name)' must be of type \(property.type.rawValue)",
                    path: prefix + property.pointer)
            }
        }
    }

    static func checkIfMatch(_ request: ServerRequest, _ object: StoredObject) throws(APIError) {
        guard let expected = request.header("If-Match") else { return }
        let trimmed = expected.trimmingCharacters(in: .whitespaces)
        guard trimmed == "*" || trimmed == object.eTag else {
            throw APIError(
                status: 412, code: .preconditionFailed,
                message: "eTag mismatch: the object's current eTag is not '\(trimmed)'", path: "If-Match")
        }
    }

    static func level(_ data: JSONObject, _ field: String, prefix: String) throws(APIError) -> ClassLevel? {
        guard let text = try optionalString(data, field, prefix: prefix) else { return nil }
        let level = ClassLevel(rawValue: text)
        guard level == .global || level == .subKey else {
            throw .invalid("class level must be Global or SubKey", path: prefix + "/" + field)
        }
        return level
    }

    /// Class endpoints take plain JSON: `application/json` or any `+json` type.
    static func checkJSONMediaType(_ request: ServerRequest) throws(APIError) {
        let type = request.header("Content-Type")?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard let type, type == "application/json" || type.hasSuffix("+json") else {
            throw APIError(
                status: 415, code: .invalidValue, message: "Content-Type must be application/json",
                path: "Content-Type")
        }
    }
}
