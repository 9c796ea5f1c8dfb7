package import JSONCore
package import PubNubCore
import PubNubCrypto
package import Transport

/// The requests of file sharing and the parsing of their answers: paths, queries and bodies as
/// the service (and PubNub's Python SDK 10.8.0) uses them.
package enum FileCall {
    /// Most files one list page may ask for.
    package static let pageLimit = 100

    private static func checkChannel(_ channel: String) throws(PubNubError) {
        guard !channel.isEmpty else { throw PubNubError.missingRequiredParameter("channel") }
    }

    private static func checkFile(id: String, name: String) throws(PubNubError) {
        if id.isEmpty { throw PubNubError.missingRequiredParameter("id") }
        if name.isEmpty { throw PubNubError.missingRequiredParameter("name") }
    }

    private static func channelPath(subscribeKey: String, channel: String) -> String {
        "/v1/files/" + HTTPRequest.encodePathSegment(subscribeKey) + "/channels/"
            + HTTPRequest.encodePathSegment(channel)
    }

    // MARK: Requests

    /// `POST /v1/files/{sub}/channels/{channel}/generate-upload-url` with `{"name":…}`.
    package static func generateUploadURL(subscribeKey: String, channel: String, name: String) throws(PubNubError)
        -> ServicePipeline.Call
    {
        try checkChannel(channel)
        if name.isEmpty { throw PubNubError.missingRequiredParameter("name") }
        let body = (try? JSONValue.object(["name": .string(name)]).jsonBytes()) ?? []
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        return ServicePipeline.Call(
            method: .post, path: channelPath(subscribeKey: subscribeKey, channel: channel) + "/generate-upload-url",
            headers: headers, body: body)
    }

    /// `GET /v1/files/{sub}/channels/{channel}/files` with `limit` and `next`.
    package static func list(subscribeKey: String, channel: String, limit: Int?, next: String?) throws(PubNubError)
        -> ServicePipeline.Call
    {
        try checkChannel(channel)
        var query: [HTTPQueryItem] = []
        if let limit {
            guard (1...pageLimit).contains(limit) else {
                throw PubNubError(
                    reason: .invalidArguments, message: "limit must be 1 to \(pageLimit); nothing was sent",
                    details: [PubNubError.Detail(message: "out of range", path: "limit")])
            }
            query.append(HTTPQueryItem(name: "limit", value: String(limit)))
        }
        if let next, !next.isEmpty { query.append(HTTPQueryItem(name: "next", value: next)) }
        return ServicePipeline.Call(
            method: .get, path: channelPath(subscribeKey: subscribeKey, channel: channel) + "/files", query: query)
    }

    /// `GET` (answered by a redirect to the file) or `DELETE`
    /// `/v1/files/{sub}/channels/{channel}/files/{id}/{name}`.
    package static func file(
        _ method: HTTPMethod, subscribeKey: String, channel: String, id: String, name: String
    ) throws(PubNubError) -> ServicePipeline.Call {
        try checkChannel(channel)
        try checkFile(id: id, name: name)
        return ServicePipeline.Call(
            method: method,
            path: channelPath(subscribeKey: subscribeKey, channel: channel) + "/files/"
                + HTTPRequest.encodePathSegment(id) + "/" + HTTPRequest.encodePathSegment(name))
    }

    /// `GET /v1/files/publish-file/{pub}/{sub}/0/{channel}/0/{message}`: the file message
    /// `{"message":…,"file":{"id","name"}}`, encrypted as a whole with `module`, with `store`,
    /// `ttl`, `meta` and `custom_message_type`.
    package static func publishFileMessage(
        publishKey: String?, subscribeKey: String, channel: String, file: PubNubFileReference, message: JSONValue?,
        options: PubNubFileMessageOptions, module: CryptoModule?
    ) throws(PubNubError) -> ServicePipeline.Call {
        guard let publishKey, !publishKey.isEmpty else { throw PubNubError.missingRequiredParameter("publishKey") }
        try checkChannel(channel)
        try checkFile(id: file.id, name: file.name)
        var payload: JSONValue = [
            "message": message ?? .null, "file": ["id": .string(file.id), "name": .string(file.name)],
        ]
        if let module {
            payload = try module.encryptedForRequest(payload, what: "the file message")
        }
        let json: [UInt8]
        do {
            json = try payload.jsonBytes()
        } catch {
            throw PubNubError(
                reason: .invalidArguments, message: "the file message is not valid JSON: \(error)", underlying: error)
        }
        var query = [HTTPQueryItem(name: "store", value: options.shouldStore ? "1" : "0")]
        if let ttl = options.storeTTL { query.append(HTTPQueryItem(name: "ttl", value: String(ttl))) }
        if let meta = options.meta, let bytes = try? meta.jsonBytes() {
            query.append(HTTPQueryItem(name: "meta", value: String(decoding: bytes, as: UTF8.self)))
        }
        if let type = options.customMessageType {
            query.append(HTTPQueryItem(name: "custom_message_type", value: type))
        }
        return ServicePipeline.Call(
            method: .get,
            path: "/v1/files/publish-file/" + HTTPRequest.encodePathSegment(publishKey) + "/"
                + HTTPRequest.encodePathSegment(subscribeKey) + "/0/" + HTTPRequest.encodePathSegment(channel)
                + "/0/" + HTTPRequest.encodePathSegment(String(decoding: json, as: UTF8.self)),
            query: query)
    }

    // MARK: Answers

    /// What generate-upload-url answered: the file's id and name and where to upload it.
    package struct UploadForm: Sendable, Equatable {
        package var file: PubNubFileReference
        package var url: String
        package var method: String
        package var fields: [(key: String, value: String)]

        package static func == (lhs: UploadForm, rhs: UploadForm) -> Bool {
            lhs.file == rhs.file && lhs.url == rhs.url && lhs.method == rhs.method
                && lhs.fields.map(\.key) == rhs.fields.map(\.key) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
        }
    }

    /// `{"data":{"id","name"},"file_upload_request":{"url","method","form_fields":[{"key","value"}]}}`.
    package static func uploadForm(_ response: HTTPResponse) throws(PubNubError) -> UploadForm {
        let object = try answerObject(response)
        guard let id = object["data"]?["id"]?.stringValue, let name = object["data"]?["name"]?.stringValue,
            let request = object["file_upload_request"], let url = request["url"]?.stringValue,
            let fields = request["form_fields"]?.arrayValue
        else {
            throw PubNubError.malformedResponse(
                "a generate-upload-url answer lacks data.id, data.name or file_upload_request",
                statusCode: response.status)
        }
        var pairs: [(key: String, value: String)] = []
        for field in fields {
            guard let key = field["key"]?.stringValue, let value = field["value"]?.stringValue else {
                throw PubNubError.malformedResponse(
                    "an upload form field is not {key, value}", statusCode: response.status)
            }
            pairs.append((key, value))
        }
        return UploadForm(
            file: PubNubFileReference(id: id, name: name), url: url, method: request["method"]?.stringValue ?? "POST",
            fields: pairs)
    }

    /// `{"data":[{"id","name","size","created"}],"next","count"}`.
    package static func page(_ response: HTTPResponse) throws(PubNubError) -> PubNubFilesPage {
        let object = try answerObject(response)
        guard let data = object["data"]?.arrayValue else {
            throw PubNubError.malformedResponse("a list-files answer has no `data` list", statusCode: response.status)
        }
        let files = data.compactMap { item -> PubNubFile? in
            guard let id = item["id"]?.stringValue, let name = item["name"]?.stringValue else { return nil }
            return PubNubFile(
                id: id, name: name, size: item["size"]?.intValue, created: item["created"]?.stringValue)
        }
        let next = object["next"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        return PubNubFilesPage(files: files, next: next)
    }

    /// `[1,"Sent","<timetoken>"]`.
    package static func publishTimetoken(_ response: HTTPResponse) throws(PubNubError) -> Timetoken {
        guard response.isSuccess else { throw PubNubError(statusCode: response.status, body: response.body) }
        guard let array = (try? JSONValue(parsing: response.body))?.arrayValue, array.count >= 3,
            let text = array[2].stringValue, let timetoken = Timetoken(text)
        else {
            throw PubNubError.malformedResponse(
                "a publish-file answer is not [1,\"Sent\",timetoken]", statusCode: response.status)
        }
        return timetoken
    }

    /// The JSON object of a 2xx answer; the service's error otherwise.
    package static func answerObject(_ response: HTTPResponse) throws(PubNubError) -> JSONValue {
        guard response.isSuccess else { throw PubNubError(statusCode: response.status, body: response.body) }
        guard let object = try? JSONValue(parsing: response.body), object.objectValue != nil else {
            throw PubNubError.malformedResponse("the answer is not a JSON object", statusCode: response.status)
        }
        return object
    }

    /// The `Location` of a redirect answer.
    package static func location(_ response: HTTPResponse) throws(PubNubError) -> String {
        guard (300..<400).contains(response.status) else {
            throw PubNubError(statusCode: response.status, body: response.body)
        }
        guard let location = response.headers["Location"], !location.isEmpty else {
            throw PubNubError.malformedResponse("a file redirect has no Location", statusCode: response.status)
        }
        return location
    }

    // MARK: Storage

    /// The `multipart/form-data` body of an upload: the form fields in the order given, then the
    /// file as `file`. Returns the body and its `Content-Type` header.
    package static func multipartBody(
        fields: [(key: String, value: String)], fileName: String, contentType: String, data: [UInt8], boundary: String
    ) -> (body: [UInt8], contentType: String) {
        var body: [UInt8] = []
        body.reserveCapacity(data.count + 256 * (fields.count + 1))
        let dashes = Array("--\(boundary)\r\n".utf8)
        for field in fields {
            body += dashes
            body += Array("Content-Disposition: form-data; name=\"\(quoted(field.key))\"\r\n\r\n".utf8)
            body += Array(field.value.utf8)
            body += Array("\r\n".utf8)
        }
        body += dashes
        body += Array(
            "Content-Disposition: form-data; name=\"file\"; filename=\"\(quoted(fileName))\"\r\nContent-Type: \(contentType)\r\n\r\n"
                .utf8)
        body += data
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    /// A boundary no file is likely to contain: 32 random hex digits after a fixed prefix.
    package static func makeBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return "pubnub-file-" + String((0..<32).map { _ in digits[Int.random(in: 0..<16, using: &generator)] })
    }

    /// A quoted-string value: `"` and `\` escaped, line breaks (which would end the header) dropped.
    private static func quoted(_ text: String) -> String {
        var output = ""
        for character in text {
            switch character {
            case "\"", "\\": output += "\\" + String(character)
            case "\r", "\n", "\r\n": continue
            default: output.append(character)
            }
        }
        return output
    }

    /// An absolute `http`/`https` URL (the upload URL, a redirect's `Location`) as a request.
    package static func storageRequest(_ url: String, method: HTTPMethod) throws(PubNubError) -> HTTPRequest {
        func bad() -> PubNubError {
            PubNubError.malformedResponse("the storage URL \(url) is not an absolute http(s) URL", statusCode: nil)
        }
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { throw bad() }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { throw bad() }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad() }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()), (1...65535).contains(value) else { throw bad() }
                port = value
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let value = Int(authority[authority.index(after: colon)...]), (1...65535).contains(value) else {
                throw bad()
            }
            port = value
        }
        guard !host.isEmpty else { throw bad() }
        let pathAndQuery = rest[authorityEnd...]
        let fragmentless =
            pathAndQuery.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first
            ?? pathAndQuery
        let pieces = fragmentless.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = pieces.first.map(String.init).flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        var items: [HTTPQueryItem] = []
        if pieces.count > 1 {
            for pair in pieces[1].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = percentDecoded(parts[0]) else { throw bad() }
                let value = parts.count > 1 ? percentDecoded(parts[1]) : nil
                if parts.count > 1, value == nil { throw bad() }
                items.append(HTTPQueryItem(name: name, value: value))
            }
        }
        return HTTPRequest(
            method: method, scheme: scheme, host: String(host), port: port, path: path, queryItems: items)
    }

    /// `%XX` decoded and `+` read as a space (form encoding, as storage URLs are written); nil
    /// for a broken escape or bytes that are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(HexDigit.value),
                    let low = iterator.next().flatMap(HexDigit.value)
                else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return Array(text.utf8) == bytes ? text : nil
    }
}
