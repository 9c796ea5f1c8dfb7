import EmulatorHTTP
import Foundation
import JSONCore

/// File sharing (Documentation/Files.md), with the emulator standing in for the service's
/// storage as well:
///
/// - `POST /v1/files/{sub}/channels/{channel}/generate-upload-url` (`{"name":…}`): a new file id
///   and an upload form whose URL is this emulator's `/_files/upload/{sub}/{channel}`, with signed
///   fields that expire after ``uploadLifetime``;
/// - `POST /_files/upload/{sub}/{channel}`: the `multipart/form-data` upload (form fields first,
///   then `file`), answered 204 like storage;
/// - `GET /v1/files/{sub}/channels/{channel}/files` (`limit` 1...100, `next`): a page of files;
/// - `GET /v1/files/{sub}/channels/{channel}/files/{id}/{name}`: a 307 redirect to a signed
///   `/_files/download/…` URL valid for ``downloadLifetime``, which serves the bytes;
/// - `DELETE` of the same path: deletes the file;
/// - `GET /v1/files/publish-file/{pub}/{sub}/0/{channel}/0/{message}` (`store`, `ttl`, `meta`,
///   `uuid`, `custom_message_type`, `ptto`): announces the file as an `e: 4` event and stores it in the
///   history unless `store=0`.
///
/// The `/_files/` routes take no token: the signature the emulator put in the form or the URL is
/// their credential, as a presigned storage URL is.
struct FileService: EmulatorService {
    let bus: PubSubBus
    let store: FileStore
    /// Signs upload forms and download URLs; random per emulator, so links do not outlive it.
    private let signingKey: [UInt8]

    /// Storage's per-file limit: 5 MiB.
    static let defaultFileLimit = 5 * 1024 * 1024
    /// The files one keyset may hold in all: 256 MiB.
    static let defaultKeysetLimit = 256 * 1024 * 1024
    /// How long an upload form stays valid.
    static let uploadLifetime: Int64 = 600
    /// How long a download URL stays valid.
    static let downloadLifetime: Int64 = 3600
    /// Most files in one list page, and the default.
    static let pageLimit = 100
    /// Longest file name accepted.
    static let nameLimit = 512
    /// The content type an upload gets when it names none.
    static let defaultContentType = "application/octet-stream"

    static let uploadPrefix = "/_files/upload/"
    static let downloadPrefix = "/_files/download/"

    init(bus: PubSubBus, fileLimit: Int, keysetLimit: Int) {
        self.bus = bus
        store = FileStore(fileLimit: fileLimit, keysetLimit: keysetLimit)
        var generator = SystemRandomNumberGenerator()
        signingKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    func claims(_ request: ServerRequest) -> Bool {
        let path = request.rawPath
        return path.hasPrefix("/v1/files/") || path.hasPrefix(Self.uploadPrefix) || path.hasPrefix(Self.downloadPrefix)
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        if let tooLong = PubSubWire.uriTooLong(request) { return tooLong }
        let raw = PubSubWire.rawSegments(request.rawPath)
        let method = request.method.uppercased()
        if raw.first == "_files" { return await storage(request, raw: raw, method: method) }
        if raw.count >= 3, raw[2] == "publish-file" {
            guard method == "GET" else { return Self.error(405, "Method Not Allowed") }
            return await publishFile(request, raw: raw)
        }
        // v1 files {sub} channels {channel} generate-upload-url | files [{id} {name}]
        guard raw.count >= 6, raw[3] == "channels", let subscribeKey = PercentDecoding.decode(raw[2]),
            let channel = PercentDecoding.decode(raw[4]), !channel.isEmpty
        else { return Self.error(400, "Invalid request") }
        guard bus.knows(subscribeKey: subscribeKey) else { return PubSubWire.invalidSubscribeKey() }
        switch (raw.count, raw[5], method) {
        case (6, "generate-upload-url", "POST"):
            return await generateUploadURL(request, subscribeKey: subscribeKey, channel: channel)
        case (6, "files", "GET"):
            return await list(request, subscribeKey: subscribeKey, channel: channel)
        case (8, "files", "GET"), (8, "files", "DELETE"):
            guard let id = PercentDecoding.decode(raw[6]), let name = PercentDecoding.decode(raw[7]), !id.isEmpty,
                !name.isEmpty
            else { return Self.error(400, "Invalid file id or name") }
            guard method == "GET" else {
                let deleted = await store.delete(subscribeKey: subscribeKey, channel: channel, id: id, name: name)
                return deleted ? PubSubWire.json(200, ["status": 200]) : Self.error(404, "File does not exist")
            }
            guard await store.file(subscribeKey: subscribeKey, channel: channel, id: id, name: name) != nil else {
                return Self.error(404, "File does not exist")
            }
            return redirect(request, subscribeKey: subscribeKey, channel: channel, id: id, name: name)
        case (6, "generate-upload-url", _), (6, "files", _), (8, "files", _):
            return Self.error(405, "Method Not Allowed")
        default:
            return Self.error(404, "Not Found")
        }
    }

    // MARK: Service routes

    private func generateUploadURL(_ request: ServerRequest, subscribeKey: String, channel: String) async
        -> ServerResponse
    {
        guard let body = try? JSONValue(parsing: request.body), let name = body["name"]?.stringValue else {
            return Self.error(400, "Request payload must be a JSON object with a string `name`")
        }
        guard Self.isValidName(name) else {
            return Self.error(400, "The file name must be 1 to \(Self.nameLimit) characters without control characters")
        }
        let id = UUID().uuidString.lowercased()
        let expires = nowSeconds + Self.uploadLifetime
        let contentType = Self.defaultContentType
        let signature = sign(["upload", subscribeKey, channel, id, name, contentType, String(expires)])
        let url =
            origin(request) + Self.uploadPrefix + PercentDecoding.encode(subscribeKey) + "/"
            + PercentDecoding.encode(channel)
        let fields: [(String, String)] = [
            ("key", id + "/" + name), ("Content-Type", contentType), ("X-Emulator-Expires", String(expires)),
            ("X-Emulator-Signature", signature),
        ]
        return PubSubWire.json(
            200,
            [
                "status": 200, "data": ["id": .string(id), "name": .string(name)],
                "file_upload_request": [
                    "url": .string(url), "method": "POST",
                    "expiration_date": .string(Timestamp.wholeSecondString(micros: expires * 1_000_000)),
                    "form_fields": .array(fields.map { ["key": .string($0.0), "value": .string($0.1)] }),
                ],
            ])
    }

    private func list(_ request: ServerRequest, subscribeKey: String, channel: String) async -> ServerResponse {
        let query = PubSubWire.query(request.rawQuery)
        var limit = Self.pageLimit
        if let text = query["limit"] {
            guard let value = Int(text), (1...Self.pageLimit).contains(value) else {
                return Self.error(400, "limit must be 1 to \(Self.pageLimit)")
            }
            limit = value
        }
        var after: UInt64 = 0
        if let next = query["next"], !next.isEmpty {
            guard let bytes = Base64URL.decode(next), let value = UInt64(String(decoding: bytes, as: UTF8.self))
            else { return Self.error(400, "Invalid next") }
            after = value
        }
        let page = await store.list(subscribeKey: subscribeKey, channel: channel, after: after, limit: limit)
        var body: [String: JSONValue] = [
            "status": 200, "count": .int(Int64(page.files.count)),
            "data": .array(
                page.files.map { file in
                    [
                        "id": .string(file.id), "name": .string(file.name), "size": .int(Int64(file.bytes.count)),
                        "created": .string(
                            ISO8601Timestamp.string(microsecondsSince1970: file.created, fractionDigits: 3)),
                    ]
                }),
        ]
        if let next = page.next { body["next"] = .string(Base64URL.encode(Array(String(next).utf8))) }
        return PubSubWire.json(200, .object(body))
    }

    private func redirect(_ request: ServerRequest, subscribeKey: String, channel: String, id: String, name: String)
        -> ServerResponse
    {
        let expires = String(nowSeconds + Self.downloadLifetime)
        let signature = sign(["download", subscribeKey, channel, id, name, expires])
        let location =
            origin(request) + Self.downloadPrefix
            + [subscribeKey, channel, id, name].map(PercentDecoding.encode).joined(separator: "/")
            + "?expires=\(expires)&signature=\(signature)"
        return ServerResponse(
            status: 307, headers: [("Location", location), ("Cache-Control", "max-age=60")], body: [])
    }

    private func publishFile(_ request: ServerRequest, raw: [Substring]) async -> ServerResponse {
        // v1 files publish-file {pub} {sub} 0 {channel} 0 {message…}
        guard raw.count >= 9, let publishKey = PercentDecoding.decode(raw[3]),
            let subscribeKey = PercentDecoding.decode(raw[4]), let channel = PercentDecoding.decode(raw[6]),
            !channel.isEmpty
        else {
            return PubSubWire.publishReply(
                400, sent: false, text: "Invalid Arguments", timetoken: await bus.timetoken(""))
        }
        let now = { await bus.timetoken(subscribeKey) }
        guard bus.accepts(publishKey: publishKey, subscribeKey: subscribeKey) else {
            return PubSubWire.publishReply(400, sent: false, text: "Invalid Key", timetoken: await bus.timetoken(""))
        }
        let rawMessage = raw[8...].joined(separator: "/")
        guard rawMessage.utf8.count + raw[6].utf8.count <= PubSubService.messageLimit else {
            return PubSubWire.publishReply(400, sent: false, text: "Message Too Large", timetoken: await now())
        }
        guard let text = PercentDecoding.decode(Substring(rawMessage)), let message = try? JSONValue(parsing: text)
        else {
            return PubSubWire.publishReply(400, sent: false, text: "Invalid JSON", timetoken: await now())
        }
        // A plain file message names its file; an encrypted one is a string nobody here can read.
        if message.stringValue == nil {
            guard message["file"]?["id"]?.stringValue != nil, message["file"]?["name"]?.stringValue != nil else {
                return PubSubWire.publishReply(
                    400, sent: false, text: "Invalid file message: file.id and file.name are required",
                    timetoken: await now())
            }
        }
        let query = PubSubWire.query(request.rawQuery)
        var meta: JSONValue?
        if let metaText = query["meta"], !metaText.isEmpty {
            guard let parsed = try? JSONValue(parsing: metaText) else {
                return PubSubWire.publishReply(400, sent: false, text: "Invalid JSON", timetoken: await now())
            }
            // PubNub's Python SDK sends `meta=null` when there is none.
            meta = parsed.isNull ? nil : parsed
        }
        let customType = query["custom_message_type"]
        if let customType, !PubSubService.isValidCustomMessageType(customType) {
            return PubSubWire.publishReply(
                400, sent: false, text: "Invalid Custom Message Type", timetoken: await now())
        }
        let (timetoken, saved) = await bus.publish(
            subscribeKey: subscribeKey, channel: channel, payload: message, eventType: 4, publisher: query["uuid"],
            meta: meta, customMessageType: customType,
            timetokenOverride: query["ptto"].flatMap(UInt64.init), requireSaved: true)
        guard saved else {
            return PubSubWire.publishReply(500, sent: false, text: "Internal Server Error", timetoken: timetoken)
        }
        if query["store"] != "0" {
            let hours = PubSubWire.clampedInteger(query["ttl"], in: 0...1_000_000).map(Int64.init) ?? 0
            let expires = hours > 0 ? bus.clock.now.advanced(by: .seconds(hours * 3600)).nanosecondsSince1970 : nil
            let stored = StoredMessage(
                timetoken: timetoken, payload: message, publisher: query["uuid"], meta: meta,
                customMessageType: customType, messageType: 4, expires: expires)
            guard await bus.storeMessage(stored, subscribeKey: subscribeKey, channel: channel) else {
                return PubSubWire.publishReply(500, sent: false, text: "Internal Server Error", timetoken: timetoken)
            }
        }
        return PubSubWire.publishReply(200, sent: true, text: "Sent", timetoken: timetoken)
    }

    // MARK: Storage routes

    private func storage(_ request: ServerRequest, raw: [Substring], method: String) async -> ServerResponse {
        switch (raw.count, raw.count > 1 ? raw[1] : "", method) {
        case (4, "upload", "POST"):
            guard let subscribeKey = PercentDecoding.decode(raw[2]), let channel = PercentDecoding.decode(raw[3]) else {
                return Self.error(400, "Invalid upload URL")
            }
            return await upload(request, subscribeKey: subscribeKey, channel: channel)
        case (6, "download", "GET"):
            guard let subscribeKey = PercentDecoding.decode(raw[2]), let channel = PercentDecoding.decode(raw[3]),
                let id = PercentDecoding.decode(raw[4]), let name = PercentDecoding.decode(raw[5])
            else { return Self.error(400, "Invalid download URL") }
            return await download(request, subscribeKey: subscribeKey, channel: channel, id: id, name: name)
        case (4, "upload", _), (6, "download", _):
            return Self.error(405, "Method Not Allowed")
        default:
            return Self.error(404, "Not Found")
        }
    }

    private func upload(_ request: ServerRequest, subscribeKey: String, channel: String) async -> ServerResponse {
        // The fields around the file are small: a body much larger than the file limit is refused
        // before it is parsed.
        guard request.body.count <= store.fileLimit + 64 * 1024 else {
            return Self.error(413, "The file is larger than \(store.fileLimit) bytes")
        }
        let form: MultipartForm
        do {
            let boundary = try MultipartForm.boundary(contentType: request.header("Content-Type"))
            form = try MultipartForm(parsing: request.body, boundary: boundary)
        } catch {
            return Self.error(400, "Malformed upload: \(error.message)")
        }
        guard let file = form.parts.last, file.name == "file" else {
            return Self.error(400, "The upload must end with its `file` part, after every form field")
        }
        guard let key = form["key"]?.text, let slash = key.firstIndex(of: "/"),
            let expiresText = form["X-Emulator-Expires"]?.text, let expires = Int64(expiresText),
            let signature = form["X-Emulator-Signature"]?.text
        else {
            return Self.error(400, "The upload lacks the form fields generate-upload-url gave")
        }
        let id = String(key[..<slash])
        let name = String(key[key.index(after: slash)...])
        let contentTypeField = form["Content-Type"]?.text ?? ""
        let expected = sign(["upload", subscribeKey, channel, id, name, contentTypeField, expiresText])
        guard Self.constantTimeEqual(signature, expected) else {
            return Self.error(403, "The upload form's signature does not match")
        }
        guard nowSeconds < expires else { return Self.error(403, "The upload form has expired") }
        let contentType = file.contentType ?? (contentTypeField.isEmpty ? Self.defaultContentType : contentTypeField)
        switch await store.put(
            subscribeKey: subscribeKey, channel: channel, id: id, name: name, contentType: contentType,
            created: bus.clock.now.microsecondsSince1970, bytes: file.body)
        {
        case .success: return ServerResponse(status: 204, headers: [], body: [])
        case .failure(.fileTooLarge): return Self.error(413, "The file is larger than \(store.fileLimit) bytes")
        case .failure(.storageFull):
            return Self.error(
                507, "The keyset's files would exceed the emulator's \(store.keysetLimit) bytes of file storage")
        }
    }

    private func download(
        _ request: ServerRequest, subscribeKey: String, channel: String, id: String, name: String
    ) async -> ServerResponse {
        let query = PubSubWire.query(request.rawQuery)
        guard let expiresText = query["expires"], let expires = Int64(expiresText), let signature = query["signature"],
            Self.constantTimeEqual(signature, sign(["download", subscribeKey, channel, id, name, expiresText]))
        else { return Self.error(403, "The download URL's signature does not match") }
        guard nowSeconds < expires else { return Self.error(403, "The download URL has expired") }
        guard let file = await store.file(subscribeKey: subscribeKey, channel: channel, id: id, name: name) else {
            return Self.error(404, "File does not exist")
        }
        return ServerResponse(status: 200, headers: [("Content-Type", file.contentType)], body: file.bytes)
    }

    // MARK: Helpers

    private var nowSeconds: Int64 { EmulatorClock.Instant.floorDiv(bus.clock.now.nanosecondsSince1970, 1_000_000_000) }

    /// `http://{Host}`: the URLs handed out point back at the emulator as the client reached it.
    private func origin(_ request: ServerRequest) -> String {
        "http://" + (request.header("Host").flatMap { $0.isEmpty ? nil : $0 } ?? "localhost")
    }

    /// HMAC-SHA256 over the length-prefixed values, so no value can shift into its neighbour.
    private func sign(_ values: [String]) -> String {
        var message: [UInt8] = []
        for value in values {
            message += Array("\(value.utf8.count):".utf8) + Array(value.utf8)
        }
        return Base64URL.encode(SHA256.hmac(key: signingKey, message: message))
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    static func isValidName(_ name: String) -> Bool {
        (1...nameLimit).contains(name.count) && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// The newer services' error body, as message actions use: `{"status":…,"error":{"message":…,"source":"files"}}`.
    static func error(_ status: Int, _ message: String) -> ServerResponse {
        PubSubWire.json(
            status, ["status": .int(Int64(status)), "error": ["message": .string(message), "source": "files"]])
    }
}
