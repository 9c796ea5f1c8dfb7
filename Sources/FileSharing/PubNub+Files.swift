public import JSONCore
public import PubNubCore
import PubNubCrypto
import Transport

extension PubNub {
    // MARK: async

    /// Sends a file to a channel: prepares the upload, uploads the bytes to the storage URL the
    /// service answered with, then announces the file with a file message
    /// (``publishFileMessage(channel:file:message:options:custom:)``). With a crypto module
    /// configured, the file and the message are encrypted. The upload is made once; only the
    /// announcement is retried. The three requests, encryption and retries: Documentation/Files.md.
    ///
    /// - Parameters:
    ///   - channel: The channel to share the file on.
    ///   - name: The file's name (what receivers see and download it by).
    ///   - data: The content; at most what the keyset allows (5 MB on the service).
    ///   - contentType: The content type of the upload's file part.
    ///   - message: An optional message sent with the file.
    ///   - options: How the file message is stored and typed.
    ///   - requestConfig: Per-request overrides, for each of the three requests.
    /// - Returns: The file's id and name and the file message's timetoken.
    /// - Throws: ``PubNubSendFileError``: its ``PubNubSendFileError/error`` says which step failed
    ///   and why (`.missingRequiredParameter` before anything is sent; `.forbidden` without write
    ///   access; `.payloadTooLarge` for a file over the limit), and
    ///   ``PubNubSendFileError/uploadedFile`` is set when only the announcement failed.
    ///
    /// ```swift
    /// let sent = try await pubnub.sendFile(channel: "room-1", name: "notes.txt", data: Array("hello".utf8))
    /// print(sent.file.id, sent.timetoken)
    /// ```
    public func sendFile(
        channel: String, name: String, data: [UInt8], contentType: String = "application/octet-stream",
        message: JSONValue? = nil, options: PubNubFileMessageOptions = PubNubFileMessageOptions(),
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws(PubNubSendFileError) -> PubNubSentFile {
        let form: FileCall.UploadForm
        do {
            let call = try FileCall.generateUploadURL(
                subscribeKey: configuration.subscribeKey, channel: channel, name: name)
            form = try FileCall.uploadForm(try await pipeline.exchange(call, custom: requestConfig))
            try await upload(data, contentType: contentType, form: form, custom: requestConfig)
        } catch {
            throw PubNubSendFileError(error: error)
        }
        var publishConfig = requestConfig
        if !(requestConfig.retryPolicy ?? configuration.retryPolicy).allowsRetry(0) {
            publishConfig.retryPolicy = PubNubConfiguration.defaultRetryPolicy
        }
        do {
            let timetoken = try await announce(
                channel: channel, file: form.file, message: message, options: options, custom: publishConfig)
            return PubNubSentFile(file: form.file, timetoken: timetoken)
        } catch {
            throw PubNubSendFileError(error: error, uploadedFile: form.file)
        }
    }

    /// Announces a file already in storage on a channel
    /// (`GET /v1/files/publish-file/{pub}/{sub}/0/{channel}/0/{message}`): subscribers receive a
    /// file event, and the message is stored in the history unless `options` say otherwise.
    /// ``sendFile(channel:name:data:contentType:message:options:custom:)`` calls it for you; call it
    /// yourself after a send whose announcement failed.
    ///
    /// The payload is `{"message":…,"file":{"id":…,"name":…}}`, encrypted as a whole when the
    /// client has a crypto module.
    ///
    /// - Returns: The file message's timetoken.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` without a publish key, channel, id or
    ///   name (nothing sent); the service's errors (`.forbidden` without write access).
    public func publishFileMessage(
        channel: String, file: PubNubFileReference, message: JSONValue? = nil,
        options: PubNubFileMessageOptions = PubNubFileMessageOptions(),
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> Timetoken {
        try await announce(channel: channel, file: file, message: message, options: options, custom: requestConfig)
    }

    /// One page of a channel's files (`GET /v1/files/{sub}/channels/{channel}/files`), oldest
    /// upload first. Pass the page's ``PubNubFilesPage/next`` as `next` for the following one.
    ///
    /// - Parameters:
    ///   - channel: The channel.
    ///   - limit: Files per page, 1 to 100; `nil` for the service's default (100).
    ///   - next: The previous page's ``PubNubFilesPage/next``; `nil` for the first page.
    ///   - requestConfig: Per-request overrides.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` or `.invalidArguments` (nothing sent);
    ///   `.forbidden` without read access; `.malformedResponse` without `data`.
    ///
    /// ```swift
    /// var next: String?
    /// repeat {
    ///     let page = try await pubnub.listFiles(channel: "room-1", next: next)
    ///     for file in page.files { print(file.name, file.size ?? 0) }
    ///     next = page.next
    /// } while next != nil
    /// ```
    public func listFiles(
        channel: String, limit: Int? = nil, next: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubFilesPage {
        let call = try FileCall.list(
            subscribeKey: configuration.subscribeKey, channel: channel, limit: limit, next: next)
        return try FileCall.page(try await pipeline.exchange(call, custom: requestConfig))
    }

    /// Where a file can be downloaded: the service answers
    /// `GET /v1/files/{sub}/channels/{channel}/files/{id}/{name}` with a redirect to a signed
    /// storage URL, and this returns that URL. It needs no credentials and expires (after an hour
    /// on the emulator), so fetch it when you need it rather than storing it. The bytes behind it
    /// are as stored: encrypted when the sender had a crypto module.
    ///
    /// - Throws: `PubNubError`: `.missingRequiredParameter` (nothing sent); `.forbidden` without
    ///   read access; `.resourceNotFound` for an unknown file on the emulator.
    public func fileURL(
        channel: String, file: PubNubFileReference,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> String {
        let call = try FileCall.file(
            .get, subscribeKey: configuration.subscribeKey, channel: channel, id: file.id, name: file.name)
        return try FileCall.location(try await pipeline.exchange(call, custom: requestConfig))
    }

    /// Downloads a file: its storage URL (see ``fileURL(channel:file:custom:)``), then the bytes,
    /// decrypted when the client has a crypto module.
    ///
    /// - Throws: `PubNubError`: as ``fileURL(channel:file:custom:)``; storage's errors; a reason
    ///   whose raw value is `decryptionFailed` when the client has a crypto module and the file
    ///   cannot be decrypted with it (not encrypted, or another key).
    ///
    /// ```swift
    /// let file = try await pubnub.downloadFile(channel: "room-1", file: event.reference)
    /// ```
    public func downloadFile(
        channel: String, file: PubNubFileReference,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDownloadedFile {
        let url = try await fileURL(channel: channel, file: file, custom: requestConfig)
        var request = try FileCall.storageRequest(url, method: .get)
        request.timeout = requestConfig.timeout ?? configuration.requestTimeout
        let response = try await storageSend(request, custom: requestConfig)
        guard response.isSuccess else { throw PubNubError(statusCode: response.status, body: response.body) }
        var data = response.body
        if let module = configuration.cryptoModule {
            do {
                data = try module.decrypt(data)
            } catch {
                throw PubNubError(
                    reason: PubNubError.Reason(rawValue: "decryptionFailed"),
                    message: "the file \(file.name) could not be decrypted: \(error.code)", underlying: error)
            }
        }
        return PubNubDownloadedFile(data: data, contentType: response.headers["Content-Type"])
    }

    /// Deletes a file from storage (`DELETE /v1/files/{sub}/channels/{channel}/files/{id}/{name}`).
    /// The file message that announced it stays in the history.
    ///
    /// - Throws: `PubNubError`: `.missingRequiredParameter` (nothing sent); `.forbidden` without
    ///   delete access; `.resourceNotFound` for an unknown file on the emulator.
    public func deleteFile(
        channel: String, file: PubNubFileReference,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        let call = try FileCall.file(
            .delete, subscribeKey: configuration.subscribeKey, channel: channel, id: file.id, name: file.name)
        _ = try FileCall.answerObject(try await pipeline.exchange(call, custom: requestConfig))
    }

    // MARK: completion

    /// Sends a file; see the `async` form. `completion` runs in the configured context; its
    /// failure is a ``PubNubSendFileError``.
    public func sendFile(
        channel: String, name: String, data: [UInt8], contentType: String = "application/octet-stream",
        message: JSONValue? = nil, options: PubNubFileMessageOptions = PubNubFileMessageOptions(),
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubSentFile, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.sendFile(
                channel: channel, name: name, data: data, contentType: contentType, message: message,
                options: options, custom: requestConfig)
        }
    }

    /// Announces a stored file; see the `async` form. `completion` runs in the configured context.
    public func publishFileMessage(
        channel: String, file: PubNubFileReference, message: JSONValue? = nil,
        options: PubNubFileMessageOptions = PubNubFileMessageOptions(),
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Timetoken, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.publishFileMessage(
                channel: channel, file: file, message: message, options: options, custom: requestConfig)
        }
    }

    /// Lists a page of files; see the `async` form. `completion` runs in the configured context.
    public func listFiles(
        channel: String, limit: Int? = nil, next: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubFilesPage, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.listFiles(channel: channel, limit: limit, next: next, custom: requestConfig)
        }
    }

    /// Gets a file's download URL; see the `async` form. `completion` runs in the configured context.
    public func fileURL(
        channel: String, file: PubNubFileReference,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<String, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.fileURL(channel: channel, file: file, custom: requestConfig) }
    }

    /// Downloads a file; see the `async` form. `completion` runs in the configured context.
    public func downloadFile(
        channel: String, file: PubNubFileReference,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDownloadedFile, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.downloadFile(channel: channel, file: file, custom: requestConfig)
        }
    }

    /// Deletes a file; see the `async` form. `completion` runs in the configured context.
    public func deleteFile(
        channel: String, file: PubNubFileReference,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.deleteFile(channel: channel, file: file, custom: requestConfig) }
    }

    private func announce(
        channel: String, file: PubNubFileReference, message: JSONValue?, options: PubNubFileMessageOptions,
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws(PubNubError) -> Timetoken {
        let call = try FileCall.publishFileMessage(
            publishKey: configuration.publishKey, subscribeKey: configuration.subscribeKey, channel: channel,
            file: file, message: message, options: options, module: configuration.cryptoModule)
        return try FileCall.publishTimetoken(try await pipeline.exchange(call, custom: requestConfig))
    }

    private func upload(
        _ data: [UInt8], contentType: String, form: FileCall.UploadForm,
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws(PubNubError) {
        var content = data
        if let module = configuration.cryptoModule {
            do {
                content = try module.encrypt(data)
            } catch {
                throw PubNubError(
                    reason: .invalidArguments, message: "the file could not be encrypted: \(error)", underlying: error)
            }
        }
        let (body, type) = FileCall.multipartBody(
            fields: form.fields, fileName: form.file.name, contentType: contentType, data: content,
            boundary: FileCall.makeBoundary())
        var request = try FileCall.storageRequest(form.url, method: HTTPMethod(rawValue: form.method.uppercased()))
        request.headers.add(name: "Content-Type", value: type)
        request.body = body
        request.timeout = requestConfig.timeout ?? configuration.requestTimeout
        let response = try await storageSend(request, custom: requestConfig)
        guard response.isSuccess else { throw PubNubError(statusCode: response.status, body: response.body) }
    }

    /// Sends a storage request on the client's transport (or the request's), outside the service
    /// pipeline: no `uuid`, `pnsdk` or token, no retries.
    private func storageSend(
        _ request: HTTPRequest, custom requestConfig: PubNub.RequestConfiguration
    ) async throws(PubNubError) -> HTTPResponse {
        let client: any HTTPClient
        if let override = requestConfig.transport {
            client = override
        } else {
            client = try pipeline.transport.get()
        }
        do {
            return try await client.send(request)
        } catch {
            throw ServicePipeline.map(error)
        }
    }
}
