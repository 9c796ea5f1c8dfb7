/// A file uploaded to the emulator's storage: its bytes live in memory, and only there (files do
/// not survive a restart; the state file does not hold them).
struct StoredFile: Sendable, Equatable {
    var id: String
    var name: String
    /// The content type the upload gave (the file part's own header, else the form's
    /// `Content-Type` field), served back on download.
    var contentType: String
    /// When it was uploaded, microseconds since 1970 on the emulator clock.
    var created: Int64
    /// Upload order within the keyset: what list pages are cut by.
    var sequence: UInt64
    var bytes: [UInt8]
}

/// The files of every keyset, per channel, with the bounds the service has: a per-file size limit
/// and, so an emulator cannot be filled until the machine runs out of memory, a total per keyset.
actor FileStore {
    enum Failure: Error, Equatable {
        /// Larger than the per-file limit.
        case fileTooLarge
        /// The keyset's files would exceed its total.
        case storageFull
    }

    let fileLimit: Int
    let keysetLimit: Int
    /// subscribe key → channel → files in upload order.
    private var files: [String: [String: [StoredFile]]] = [:]
    private var totals: [String: Int] = [:]
    private var nextSequence: UInt64 = 1

    init(fileLimit: Int, keysetLimit: Int) {
        self.fileLimit = fileLimit
        self.keysetLimit = keysetLimit
    }

    /// Stores an upload; an upload with the id of a stored file replaces it, as storage does.
    func put(
        subscribeKey: String, channel: String, id: String, name: String, contentType: String, created: Int64,
        bytes: [UInt8]
    ) -> Result<StoredFile, Failure> {
        guard bytes.count <= fileLimit else { return .failure(.fileTooLarge) }
        var channelFiles = files[subscribeKey]?[channel] ?? []
        let replaced = channelFiles.firstIndex { $0.id == id }
        let freed = replaced.map { channelFiles[$0].bytes.count } ?? 0
        let total = totals[subscribeKey, default: 0] - freed + bytes.count
        guard total <= keysetLimit else { return .failure(.storageFull) }
        let file = StoredFile(
            id: id, name: name, contentType: contentType, created: created, sequence: nextSequence, bytes: bytes)
        nextSequence += 1
        if let replaced { channelFiles.remove(at: replaced) }
        channelFiles.append(file)
        files[subscribeKey, default: [:]][channel] = channelFiles
        totals[subscribeKey] = total
        return .success(file)
    }

    /// The file `id` named `name` on `channel`, if stored.
    func file(subscribeKey: String, channel: String, id: String, name: String) -> StoredFile? {
        files[subscribeKey]?[channel]?.first { $0.id == id && $0.name == name }
    }

    /// One page of a channel's files in upload order, after the file with sequence `after`; with
    /// the sequence to continue from when more follow.
    func list(subscribeKey: String, channel: String, after: UInt64, limit: Int) -> (
        files: [StoredFile], next: UInt64?
    ) {
        let all = files[subscribeKey]?[channel] ?? []
        let remaining = all.filter { $0.sequence > after }
        let page = Array(remaining.prefix(limit))
        let more = remaining.count > page.count
        return (page, more ? page.last?.sequence : nil)
    }

    /// Deletes a file; false when there is none.
    func delete(subscribeKey: String, channel: String, id: String, name: String) -> Bool {
        guard var channelFiles = files[subscribeKey]?[channel],
            let index = channelFiles.firstIndex(where: { $0.id == id && $0.name == name })
        else { return false }
        totals[subscribeKey, default: 0] -= channelFiles[index].bytes.count
        channelFiles.remove(at: index)
        files[subscribeKey]?[channel] = channelFiles.isEmpty ? nil : channelFiles
        return true
    }

    /// Bytes stored for a keyset.
    func totalBytes(_ subscribeKey: String) -> Int { totals[subscribeKey, default: 0] }
}
