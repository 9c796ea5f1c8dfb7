/// Ids kept in ascending UTF-8 byte order (the emulator's default list order; ids are equal only
/// when their Unicode scalars are, see ``ExactString``) in chunks of at
/// most ``maximumChunk``, so inserting and removing cost O(log n + chunk) and a page can start at
/// any id with two binary searches instead of a scan of the whole collection.
struct SortedIds {
    static let maximumChunk = 512

    private(set) var chunks: [[String]] = []
    private(set) var count = 0

    static func less(_ left: String, _ right: String) -> Bool {
        left.utf8.lexicographicallyPrecedes(right.utf8)
    }

    /// The index of the chunk `id` belongs in: the first whose last element is not below it.
    private func chunkIndex(for id: String) -> Int {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, Self.less(last, id) { low = middle + 1 } else { high = middle }
        }
        return min(low, max(chunks.count - 1, 0))
    }

    /// The first position in `chunk` whose id is not below `id` (or above it, when `strictly`).
    private static func position(of id: String, in chunk: [String], strictly: Bool) -> Int {
        var low = 0
        var high = chunk.count
        while low < high {
            let middle = (low + high) / 2
            let before = strictly ? !less(id, chunk[middle]) : less(chunk[middle], id)
            if before { low = middle + 1 } else { high = middle }
        }
        return low
    }

    mutating func insert(_ id: String) {
        guard !chunks.isEmpty else {
            chunks = [[id]]
            count = 1
            return
        }
        let index = chunkIndex(for: id)
        let offset = Self.position(of: id, in: chunks[index], strictly: false)
        if offset < chunks[index].count, chunks[index][offset].isExactly(id) { return }
        chunks[index].insert(id, at: offset)
        count += 1
        if chunks[index].count > Self.maximumChunk {
            let upper = Array(chunks[index][(Self.maximumChunk / 2)...])
            chunks[index].removeLast(upper.count)
            chunks.insert(upper, at: index + 1)
        }
    }

    mutating func remove(_ id: String) {
        guard !chunks.isEmpty else { return }
        let index = chunkIndex(for: id)
        let offset = Self.position(of: id, in: chunks[index], strictly: false)
        guard offset < chunks[index].count, chunks[index][offset].isExactly(id) else { return }
        chunks[index].remove(at: offset)
        count -= 1
        if chunks[index].isEmpty { chunks.remove(at: index) }
    }

    /// A position in the sequence, for walking it in order.
    typealias Cursor = ChunkPosition

    /// The position of the first id strictly after `id`, or of the first id when `id` is nil.
    func cursor(after id: String?) -> Cursor {
        guard let id, !chunks.isEmpty else { return Cursor(chunk: 0, offset: 0) }
        let index = chunkIndex(for: id)
        let offset = Self.position(of: id, in: chunks[index], strictly: true)
        return offset < chunks[index].count ? Cursor(chunk: index, offset: offset) : Cursor(chunk: index + 1, offset: 0)
    }

    func id(at cursor: Cursor) -> String? { chunks.element(at: cursor) }

    func advance(_ cursor: inout Cursor) { chunks.advance(&cursor) }
}
