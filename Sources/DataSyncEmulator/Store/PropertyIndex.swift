/// What a property index reads from each object: a built-in field or a declared property's
/// pointer. The key it stores is the object's ``SortValue`` for that field, exactly what a sort
/// compares (`SortField.value(of:)`).
enum IndexSource: Hashable {
    case status
    case createdAt
    case updatedAt
    case pointer([String])

    func key(of object: StoredObject) -> SortValue {
        switch self {
        case .status: return object.status.map(SortValue.string) ?? .null
        case .createdAt: return .number(Double(object.createdAt))
        case .updatedAt: return .number(Double(object.updatedAt))
        case .pointer(let tokens): return SortValue(object.value(atPointerTokens: tokens))
        }
    }
}

extension SortValue {
    /// Three-way comparison agreeing with `<` and `==`: strings by Unicode scalars (their UTF-8
    /// bytes), numbers by value, then the type ranks null < Booleans < numbers < strings.
    static func compare(_ left: SortValue, _ right: SortValue) -> Int {
        switch (left, right) {
        case (.null, .null): return 0
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.number(let a), .number(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.string(let a), .string(let b)): return Self.compareBytes(a, b)
        default: return left < right ? -1 : 1
        }
    }

    static func compareBytes(_ left: String, _ right: String) -> Int {
        if left.isExactly(right) { return 0 }
        return left.utf8.lexicographicallyPrecedes(right.utf8) ? -1 : 1
    }
}

/// One class's objects ordered by one field's ``SortValue``, ties by id (UTF-8 bytes): the
/// order a one-field ascending sort lists them in. Kept in chunks of at most ``maximumChunk``
/// entries (as ``SortedIds`` keeps ids), so a write costs O(log n + chunk), an equality or range
/// lookup two binary searches, and a sorted page a walk from its first position.
///
/// Each entry holds the object's box, so a walk reads objects without id lookups; the keyset
/// replaces the entry whenever it replaces the box.
final class PropertyIndex {
    static let maximumChunk = 512

    struct Entry {
        var key: SortValue
        var box: ObjectBox
    }

    /// A position: chunk and offset. `(chunks.count, 0)` is the end.
    typealias Position = ChunkPosition

    let source: IndexSource
    private(set) var chunks: [[Entry]] = []
    private(set) var count = 0

    init(source: IndexSource) { self.source = source }

    /// Whether `(key, id)` sorts before `entry`.
    private static func precedes(_ key: SortValue, _ id: String, _ entry: Entry) -> Bool {
        let order = SortValue.compare(key, entry.key)
        return order < 0 || (order == 0 && id.utf8.lexicographicallyPrecedes(entry.box.object.id.utf8))
    }

    /// The position of `(key, id)` if present, or where it would go.
    private func slot(_ key: SortValue, _ id: String) -> Position {
        // The first chunk whose last entry does not sort before (key, id).
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, !Self.precedes(key, id, last), !Self.same(key, id, last) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        let chunk = min(low, max(chunks.count - 1, 0))
        guard chunk < chunks.count else { return Position(chunk: 0, offset: 0) }
        var lower = 0
        var upper = chunks[chunk].count
        while lower < upper {
            let middle = (lower + upper) / 2
            let entry = chunks[chunk][middle]
            if Self.precedes(key, id, entry) || Self.same(key, id, entry) { upper = middle } else { lower = middle + 1 }
        }
        return Position(chunk: chunk, offset: lower)
    }

    private static func same(_ key: SortValue, _ id: String, _ entry: Entry) -> Bool {
        SortValue.compare(key, entry.key) == 0 && id.isExactly(entry.box.object.id)
    }

    func insert(_ box: ObjectBox) {
        let key = source.key(of: box.object)
        let entry = Entry(key: key, box: box)
        guard !chunks.isEmpty else {
            chunks = [[entry]]
            count = 1
            return
        }
        let position = slot(key, box.object.id)
        if position.offset < chunks[position.chunk].count,
            Self.same(key, box.object.id, chunks[position.chunk][position.offset])
        {
            chunks[position.chunk][position.offset] = entry
            return
        }
        chunks[position.chunk].insert(entry, at: position.offset)
        count += 1
        if chunks[position.chunk].count > Self.maximumChunk {
            let upper = Array(chunks[position.chunk][(Self.maximumChunk / 2)...])
            chunks[position.chunk].removeLast(upper.count)
            chunks.insert(upper, at: position.chunk + 1)
        }
    }

    /// Removes the entry of `object` (read with the object as it was stored).
    func remove(_ object: StoredObject) {
        guard !chunks.isEmpty else { return }
        let key = source.key(of: object)
        let position = slot(key, object.id)
        guard position.offset < chunks[position.chunk].count,
            Self.same(key, object.id, chunks[position.chunk][position.offset])
        else { return }
        chunks[position.chunk].remove(at: position.offset)
        count -= 1
        if chunks[position.chunk].isEmpty { chunks.remove(at: position.chunk) }
    }

    /// Replaces `old` (as stored) by the object in `box`.
    func replace(_ old: StoredObject, with box: ObjectBox) {
        remove(old)
        insert(box)
    }

    // MARK: Lookups

    var start: Position { Position(chunk: 0, offset: 0) }
    var end: Position { Position(chunk: chunks.count, offset: 0) }

    /// The first position whose key is not below `key` (`strictly`: above it).
    func position(of key: SortValue, strictly: Bool) -> Position {
        func before(_ entry: Entry) -> Bool {
            let order = SortValue.compare(entry.key, key)
            return strictly ? order <= 0 : order < 0
        }
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, before(last) { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return end }
        var lower = 0
        var upper = chunks[low].count
        while lower < upper {
            let middle = (lower + upper) / 2
            if before(chunks[low][middle]) { lower = middle + 1 } else { upper = middle }
        }
        return normalized(Position(chunk: low, offset: lower))
    }

    private func normalized(_ position: Position) -> Position {
        position.chunk < chunks.count && position.offset >= chunks[position.chunk].count
            ? Position(chunk: position.chunk + 1, offset: 0) : position
    }

    static func earlier(_ left: Position, _ right: Position) -> Position {
        (left.chunk, left.offset) < (right.chunk, right.offset) ? left : right
    }

    static func later(_ left: Position, _ right: Position) -> Position {
        (left.chunk, left.offset) < (right.chunk, right.offset) ? right : left
    }

    /// How many entries lie before `position`.
    func rank(_ position: Position) -> Int {
        var total = 0
        for index in 0..<min(position.chunk, chunks.count) { total += chunks[index].count }
        return total + position.offset
    }

    func entry(at position: Position) -> Entry? { chunks.element(at: position) }

    func advance(_ position: inout Position) { chunks.advance(&position) }

    /// The position before `position`, or nil at the start.
    func retreat(_ position: Position) -> Position? {
        if position.offset > 0 { return Position(chunk: position.chunk, offset: position.offset - 1) }
        var chunk = position.chunk - 1
        while chunk >= 0 {
            if !chunks[chunk].isEmpty { return Position(chunk: chunk, offset: chunks[chunk].count - 1) }
            chunk -= 1
        }
        return nil
    }

    /// The boxes from `lower` (inclusive) to `upper` (exclusive).
    func boxes(from lower: Position, to upper: Position, into result: inout [ObjectBox]) {
        guard Self.earlier(lower, upper) == lower else { return }
        var position = lower
        while position.chunk < upper.chunk || (position.chunk == upper.chunk && position.offset < upper.offset) {
            guard let entry = entry(at: position) else { return }
            result.append(entry.box)
            advance(&position)
        }
    }

    /// Every entry in order, for checks.
    var entries: [Entry] { chunks.flatMap { $0 } }
}
