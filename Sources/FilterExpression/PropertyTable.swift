/// The property names a ``FilterValidator`` knows about (the built-ins, the never-filterable
/// system properties and the declared properties of the class version in use), looked up by their
/// UTF-8 bytes with a small open-addressing table built once per validator, so that checking a
/// condition neither hashes a `String` with SipHash nor compares against each built-in in turn.
///
/// Only ASCII names are in the table: two ASCII strings are equal exactly when their bytes are.
/// A name with other characters gives ``Lookup/notASCII`` and the validator falls back to the
/// `String`-keyed sets and dictionary, which compare by canonical equivalence. Because a declared
/// key that is not ASCII can still equal an ASCII name (U+212A KELVIN SIGN is canonically `K`),
/// ``hasNonASCIIKeys`` tells the validator to consult the dictionary when an ASCII name misses.
final class PropertyTable: Sendable {
    /// What a name in the table is.
    enum Kind: Sendable {
        case builtIn
        case unfilterable
        case declared
    }

    /// One known name: its kind, what its mode permits, and its first 16 bytes packed into two
    /// words (little-endian, zero-padded), so that a lookup compares two integers and the count.
    struct Entry: Sendable {
        var kind: Kind
        /// `mode.permits(nil)`, which is also `mode.permits(.filterFast)`.
        var permitsAnyTier: Bool
        /// `mode.permits(.filter)`.
        var permitsFilter: Bool
        var count: Int
        var low: UInt64
        var high: UInt64

        /// `mode.permits(tier)`.
        func permits(_ tier: FilterTier?) -> Bool {
            tier?.kind == .filter ? permitsFilter : permitsAnyTier
        }
    }

    /// The result of a lookup.
    enum Lookup {
        /// The index of the name's entry.
        case found(Int)
        /// An ASCII name that is not in the table.
        case missing
        /// A name with non-ASCII characters (or without contiguous UTF-8): use the slow path.
        case notASCII
    }

    /// Indexes into `entries` plus one (zero marks an empty slot); the count is a power of two and
    /// at least twice the number of entries, so a probe always reaches an empty slot.
    private let slots: [Int32]
    private let entries: [Entry]
    /// The declared (or implied) mode of each entry, for messages.
    private let modes: [FilteringMode]
    /// Each entry's name, so that a condition parsed against the table can take its property
    /// `String` from here instead of decoding the same bytes again.
    private let names: [String]
    /// The bytes after the first 16 of each entry's name (empty for most names).
    private let tails: [[UInt8]]
    /// Whether a declared name is not ASCII (see the type's discussion).
    let hasNonASCIIKeys: Bool

    /// The table of the system properties alone, for validators without a schema (or with an
    /// unknown class version).
    static let systemOnly = PropertyTable(declared: nil)

    /// Builds the table for `declared` (the declared properties of one class version).
    ///
    /// The table is a class so that the parser can hold it for a parse with one reference
    /// instead of copying (and retaining) each of its arrays.
    init(declared: [String: FilteringMode]?) {
        var capacity = 8
        while capacity < 2 * ((declared?.count ?? 0) + 6) { capacity *= 2 }
        var builder = Builder(capacity: capacity)
        // The system properties go in first: they win over a declaration of the same name, as
        // in `FilterSchema.mode(of:)`.
        for name in FilterSchema.builtInProperties { builder.insert(name, kind: .builtIn, mode: .full) }
        for name in FilterSchema.unfilterableProperties {
            builder.insert(name, kind: .unfilterable, mode: FilteringMode.none)
        }
        var hasNonASCIIKeys = false
        for (name, mode) in declared ?? [:] {
            if name.utf8.allSatisfy({ $0 < 0x80 }) {
                builder.insert(name, kind: .declared, mode: mode)
            } else {
                hasNonASCIIKeys = true
            }
        }
        slots = builder.slots
        entries = builder.entries
        modes = builder.modes
        names = builder.names
        tails = builder.tails
        self.hasNonASCIIKeys = hasNonASCIIKeys
    }

    /// The table's arrays while they are filled.
    private struct Builder {
        var slots: [Int32]
        var entries: [Entry] = []
        var modes: [FilteringMode] = []
        var names: [String] = []
        var tails: [[UInt8]] = []

        init(capacity: Int) {
            slots = Array(repeating: 0, count: capacity)
        }

        mutating func insert(_ name: String, kind: Kind, mode: FilteringMode) {
            let bytes = Array(name.utf8)
            let (low, high) = bytes.withUnsafeBufferPointer { PropertyTable.pack($0) }
            let tail = Array(bytes.dropFirst(16))
            let mask = slots.count - 1
            var slot = PropertyTable.hash(low, high, bytes.count) & mask
            while slots[slot] != 0 {
                let index = Int(slots[slot]) - 1
                let entry = entries[index]
                // A system name already there wins.
                if entry.count == bytes.count, entry.low == low, entry.high == high, tails[index] == tail { return }
                slot = (slot + 1) & mask
            }
            entries.append(
                Entry(
                    kind: kind, permitsAnyTier: mode.permits(nil), permitsFilter: mode.permits(.filter),
                    count: bytes.count, low: low, high: high))
            modes.append(mode)
            names.append(name)
            tails.append(tail)
            slots[slot] = Int32(entries.count)  // safe: 2^31 names would need far more memory than a process has
        }
    }

    /// The entry at an index from ``lookup(_:)``.
    func entry(_ index: Int) -> Entry { entries[index] }

    /// The mode of the entry at an index from ``lookup(_:)``.
    func mode(_ index: Int) -> FilteringMode { modes[index] }

    /// The name of the entry at an index from ``lookup(_:)``: the same bytes as the name looked up.
    func name(_ index: Int) -> String { names[index] }

    /// Looks `name` up by its bytes.
    func lookup(_ name: String) -> Lookup {
        name.utf8.withContiguousStorageIfAvailable { lookup(bytes: $0) } ?? .notASCII
    }

    /// Looks up the name at `source[start..<end]` (`end > start`): for a name of up to eight
    /// bytes with eight bytes of `source` from its start, the packed word is one load and a
    /// mask instead of a byte loop.
    @inline(__always)
    func lookup(in source: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Lookup {
        let count = end - start
        if count <= 8, start >= 0, start + 8 <= source.count, let base = source.baseAddress {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
            // Keep the name's bytes: the low `count` bytes of the little-endian word.
            let low = count == 8 ? word : word & ((1 << (8 * UInt64(count))) &- 1)
            return probe(low: low, high: 0, count: count, bytes: nil)
        }
        return lookup(bytes: UnsafeBufferPointer(rebasing: source[start..<end]))
    }

    /// Looks a name up by its UTF-8 bytes (for the parser, which has them before any `String`).
    func lookup(bytes: UnsafeBufferPointer<UInt8>) -> Lookup {
        let (low, high) = Self.pack(bytes)
        let count = bytes.count
        // The packed words hold the first 16 bytes; only longer names need another look.
        var highBits = (low | high) & 0x8080_8080_8080_8080
        if count > 16 {
            for byte in bytes.dropFirst(16) { highBits |= UInt64(byte & 0x80) }
        }
        guard highBits == 0 else { return .notASCII }
        return probe(low: low, high: high, count: count, bytes: bytes)
    }

    /// The table lookup proper, for a name packed into `low` and `high`; `bytes` are the name's
    /// bytes, needed only past the first 16 (nil for a name of at most 16 bytes).
    @inline(__always)
    private func probe(low: UInt64, high: UInt64, count: Int, bytes: UnsafeBufferPointer<UInt8>?) -> Lookup {
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return .notASCII }
        return slots.withUnsafeBufferPointer { slots in
            entries.withUnsafeBufferPointer { entries in
                let mask = slots.count - 1
                var slot = Self.hash(low, high, count) & mask
                while true {
                    let stored = Int(slots[slot])
                    if stored == 0 { return .missing }
                    let entry = entries[stored - 1]
                    if entry.low == low, entry.high == high, entry.count == count,
                        count <= 16 || bytes.map({ tails[stored - 1].elementsEqual($0.dropFirst(16)) }) == true
                    {
                        return .found(stored - 1)
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// The first 16 bytes as two little-endian words, zero-padded.
    private static func pack(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        for index in 0..<min(bytes.count, 8) { low |= UInt64(bytes[index]) << (8 * UInt64(index)) }
        if bytes.count > 8 {
            for index in 8..<min(bytes.count, 16) { high |= UInt64(bytes[index]) << (8 * UInt64(index - 8)) }
        }
        return (low, high)
    }

    private static func hash(_ low: UInt64, _ high: UInt64, _ count: Int) -> Int {
        // A multiply-and-fold mix; names only need to spread over a small table.
        let mixed = (low ^ (high &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(truncatingIfNeeded: count)) &* 0xFF51_AFD7_ED55_8CCD
        return Int(truncatingIfNeeded: mixed >> 32)
    }
}
