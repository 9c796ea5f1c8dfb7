public import JSONCore
package import PubNubBase
public import PubNubCore

/// What names a shared file: the id the service gave it and its name. Both are needed to
/// download, delete or announce it.
public struct PubNubFileReference: Sendable, Hashable {
    /// The id the service gave the file when its upload was prepared.
    public var id: String
    /// The file's name, as given when it was sent.
    public var name: String

    /// Creates a reference, for example from a file event's `fileId` and `fileName`.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A file a channel holds, as listed.
public struct PubNubFile: Sendable, Hashable {
    /// The file's id.
    public var id: String
    /// The file's name.
    public var name: String
    /// Its size in bytes as stored (the encrypted size for an encrypted file), when the service
    /// reported it.
    public var size: Int?
    /// When it was uploaded, as the service wrote it (ISO 8601), when reported.
    public var created: String?

    /// Creates a file description.
    public init(id: String, name: String, size: Int? = nil, created: String? = nil) {
        self.id = id
        self.name = name
        self.size = size
        self.created = created
    }

    /// The reference to pass to download, delete or announce it.
    public var reference: PubNubFileReference { PubNubFileReference(id: id, name: name) }
}

/// One page of a channel's files, oldest upload first.
public struct PubNubFilesPage: Sendable, Hashable {
    /// The files of this page.
    public var files: [PubNubFile]
    /// Pass as `next` to list the following page; `nil` on the last page.
    public var next: String?

    /// Creates a page.
    public init(files: [PubNubFile], next: String?) {
        self.files = files
        self.next = next
    }
}

/// A file sent and announced on its channel.
public struct PubNubSentFile: Sendable, Hashable {
    /// The file's id and name.
    public var file: PubNubFileReference
    /// The timetoken of the file message that announced it.
    public var timetoken: Timetoken

    /// Creates a result.
    public init(file: PubNubFileReference, timetoken: Timetoken) {
        self.file = file
        self.timetoken = timetoken
    }
}

/// A downloaded file.
public struct PubNubDownloadedFile: Sendable, Hashable {
    /// The file's content: decrypted when the client has a crypto module.
    public var data: [UInt8]
    /// The content type storage served it with, when it sent one.
    public var contentType: String?

    /// Creates a downloaded file.
    public init(data: [UInt8], contentType: String? = nil) {
        self.data = data
        self.contentType = contentType
    }
}

/// How the message announcing a file is published and stored.
public struct PubNubFileMessageOptions: Sendable, Hashable {
    /// Whether the file message is kept in the channel's history (`store`). Default `true`.
    public var shouldStore: Bool
    /// Hours the stored file message is kept (`ttl`); `nil` for the keyset's retention.
    public var storeTTL: Int?
    /// Metadata for subscribers' filter expressions (`meta`); never encrypted.
    public var meta: JSONValue?
    /// A custom message type (`custom_message_type`): 3 to 50 of `A-Za-z0-9_-`.
    public var customMessageType: String?

    /// Creates options; the defaults store the message with the keyset's retention.
    public init(
        shouldStore: Bool = true, storeTTL: Int? = nil, meta: JSONValue? = nil, customMessageType: String? = nil
    ) {
        self.shouldStore = shouldStore
        self.storeTTL = storeTTL
        self.meta = meta
        self.customMessageType = customMessageType
    }
}

/// Why `PubNub.sendFile(channel:name:data:…)` failed, and
/// whether the file reached storage.
///
/// Sending is three requests: prepare the upload, upload, announce. When the upload went through
/// but every attempt to announce it failed, ``uploadedFile`` names the stored file: announce it
/// later with `PubNub.publishFileMessage(channel:file:…)` rather than
/// uploading it again.
///
/// ```swift
/// do {
///     let sent = try await pubnub.sendFile(channel: "room-1", name: "cat.jpg", data: bytes)
/// } catch let failure as PubNubSendFileError {
///     if let stored = failure.uploadedFile { pendingAnnouncements.append(stored) }
/// }
/// ```
public struct PubNubSendFileError: Error, Sendable, CustomStringConvertible {
    /// What went wrong in the step that failed.
    public var error: PubNubError
    /// The file in storage, when the upload succeeded and only the announcement failed.
    public var uploadedFile: PubNubFileReference?

    /// Creates an error.
    public init(error: PubNubError, uploadedFile: PubNubFileReference? = nil) {
        self.error = error
        self.uploadedFile = uploadedFile
    }

    /// The error, and whether the file was stored.
    public var description: String {
        if let uploadedFile {
            return "the file \(uploadedFile.name) (\(uploadedFile.id)) was uploaded but not announced: \(error)"
        }
        return "the file was not sent: \(error)"
    }
}

// So `error.pubNubError` finds the step's error inside, as it does for a failed publish.
extension PubNubSendFileError: PubNubErrorWrapper {
    package var wrappedPubNubError: PubNubError { error }
}
