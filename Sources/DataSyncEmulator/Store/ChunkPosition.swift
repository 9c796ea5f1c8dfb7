/// A place in a sorted sequence kept as chunks (``SortedIds``, ``PropertyIndex``): the chunk,
/// then the offset in it. `(chunks.count, 0)` is the end.
struct ChunkPosition: Equatable {
    var chunk: Int
    var offset: Int
}

extension Array {
    /// The element at `position` of a chunked sequence, nil at or past the end.
    func element<Item>(at position: ChunkPosition) -> Item? where Element == [Item] {
        position.chunk < count && position.offset < self[position.chunk].count
            ? self[position.chunk][position.offset] : nil
    }

    /// Moves `position` to the next element, stepping to the next chunk past a chunk's last one.
    func advance<Item>(_ position: inout ChunkPosition) where Element == [Item] {
        position.offset += 1
        if position.chunk < count, position.offset >= self[position.chunk].count {
            position.chunk += 1
            position.offset = 0
        }
    }
}
