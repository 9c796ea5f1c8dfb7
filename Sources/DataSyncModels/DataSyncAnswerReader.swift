import JSONCore

/// The byte reader met something it does not read itself; the tree decoder decides what the
/// answer is (and gives the error, if there is one).
struct OffTheFastPath: Error {}

/// Reads `{"data": {…}}` and `{"data": […], "meta": {…}}` answers straight from their bytes: the
/// envelope's braces, commas and plain member names here, every value (and so every byte of it)
/// by JSONCore's parser. A model's members go into slots by name (``DataSyncWireKeys``) and the
/// model reads them through the same ``DataSyncWireReader`` accessors as from a parsed object
/// (``DataSyncEnvelope`` makes the model), so no hashed object is built for them and no name
/// becomes a `String`.
///
/// It takes exactly the well-formed answers whose model reads without error, and gives up
/// (``OffTheFastPath``) on anything else: a syntax error, a name with an escape or a non-ASCII
/// byte, a repeated `data` or `meta`, a value of another shape, a model that fails to read. The
/// tree decoder then reads the body and has the last word, so errors are its own. For every body
/// this reader accepts, the tree decoder gives the same value; `DataSyncDecodePathTests` and
/// `fuzz-decoders` check that.
struct DataSyncAnswerReader {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var values: JSONValueReader

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        values = JSONValueReader(bytes)
    }

    /// The members of the object in `{"data": {…}}` that `keys` lists, as a reader for the model.
    ///
    /// Not generic over the model: a generic reader, called from another module, ran unspecialised
    /// and looked up type metadata (`Optional<T>` and the like) on every answer.
    mutating func object(keys: DataSyncWireKeys, kind: String) throws(OffTheFastPath) -> DataSyncWireReader {
        var object: DataSyncWireReader?
        try readRoot { reader, name throws(OffTheFastPath) in
            if name == .data {
                guard object == nil, reader.peek() == UInt8(ascii: "{") else { throw OffTheFastPath() }
                object = try reader.members(keys: keys, kind: kind, depth: 1)
            } else {
                try reader.skipValue(depth: 1)
            }
        }
        guard let object else { throw OffTheFastPath() }
        return object
    }

    /// `{"data": […], "meta": {…}}`: `model` is called with each object's reader in order; the
    /// page of `meta` is returned.
    mutating func list(
        keys: DataSyncWireKeys, kind: String, _ model: (DataSyncWireReader) throws(OffTheFastPath) -> Void
    ) throws(OffTheFastPath) -> PubNubDataSyncPage? {
        var sawData = false
        var meta: JSONValue?
        try readRoot { reader, name throws(OffTheFastPath) in
            switch name {
            case .data:
                guard !sawData else { throw OffTheFastPath() }
                sawData = true
                try reader.models(keys: keys, kind: kind, model)
            case .meta:
                guard meta == nil else { throw OffTheFastPath() }
                meta = try reader.value(depth: 1)
            case .other:
                try reader.skipValue(depth: 1)
            }
        }
        guard sawData else { throw OffTheFastPath() }
        do {
            return try DataSyncEnvelope.page(from: meta)
        } catch {
            throw OffTheFastPath()
        }
    }

    private enum RootName { case data, meta, other }

    /// Reads the root object, calling `member` at each member's value, then checks that only
    /// white space follows.
    private mutating func readRoot(
        _ member: (inout DataSyncAnswerReader, RootName) throws(OffTheFastPath) -> Void
    ) throws(OffTheFastPath) {
        skipSpace()
        try consume(UInt8(ascii: "{"))
        if try objectHasMembers() {
            repeat {
                let (start, count) = try name()
                try member(&self, rootName(start: start, count: count))
            } while try nextMember()
        }
        skipSpace()
        guard index == bytes.count else { throw OffTheFastPath() }
    }

    private func rootName(start: Int, count: Int) -> RootName {
        guard count == 4 else { return .other }
        let word = bytes.loadUnaligned(fromByteOffset: start, as: UInt32.self)
        if word == Self.word("data") { return .data }
        if word == Self.word("meta") { return .meta }
        return .other
    }

    /// The four ASCII bytes of `text` as they load from memory.
    private static func word(_ text: StaticString) -> UInt32 {
        UnsafeRawPointer(text.utf8Start).loadUnaligned(as: UInt32.self)
    }

    /// `data`'s array of objects, each two containers deep, handed to `model` one by one.
    private mutating func models(
        keys: DataSyncWireKeys, kind: String, _ model: (DataSyncWireReader) throws(OffTheFastPath) -> Void
    ) throws(OffTheFastPath) {
        try consume(UInt8(ascii: "["))
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        repeat {
            skipSpace()
            guard peek() == UInt8(ascii: "{") else { throw OffTheFastPath() }
            try model(members(keys: keys, kind: kind, depth: 2))
        } while try nextElement()
    }

    /// One object, which `depth` containers enclose: the members `keys` lists into slots (the
    /// last of a repeated name wins, as in a parsed object), the rest parsed and dropped.
    private mutating func members(
        keys: DataSyncWireKeys, kind: String, depth: Int
    ) throws(OffTheFastPath) -> DataSyncWireReader {
        var slots = [JSONValue?](repeating: nil, count: keys.names.count)
        try consume(UInt8(ascii: "{"))
        if try objectHasMembers() {
            repeat {
                let (start, count) = try name()
                if let slot = keys.slot(of: bytes, start: start, count: count) {
                    slots[slot] = try value(depth: depth + 1)
                } else {
                    try skipValue(depth: depth + 1)
                }
            } while try nextMember()
        }
        return DataSyncWireReader(kind: kind, keys: keys, values: slots)
    }

    // MARK: Bytes

    @inline(__always)
    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inline(__always)
    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    @inline(__always)
    private mutating func consume(_ byte: UInt8) throws(OffTheFastPath) {
        guard index < bytes.count, bytes[index] == byte else { throw OffTheFastPath() }
        index += 1
    }

    /// After an object's `{`: false (past the `}`) when it is empty.
    private mutating func objectHasMembers() throws(OffTheFastPath) -> Bool {
        skipSpace()
        guard let byte = peek() else { throw OffTheFastPath() }
        if byte == UInt8(ascii: "}") {
            index += 1
            return false
        }
        return true
    }

    /// A member name and its `:`, as the offset and length of its bytes. Only plain names (printable
    /// ASCII, no escape) are read here: their bytes are their text.
    private mutating func name() throws(OffTheFastPath) -> (start: Int, count: Int) {
        skipSpace()
        try consume(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let count = index - start
                index += 1
                skipSpace()
                try consume(UInt8(ascii: ":"))
                skipSpace()
                return (start, count)
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { break }
            index += 1
        }
        throw OffTheFastPath()
    }

    /// After a member's value: true (past the `,`) when another member follows, false (past the
    /// `}`) at the end of the object.
    private mutating func nextMember() throws(OffTheFastPath) -> Bool {
        try next(closing: UInt8(ascii: "}"))
    }

    private mutating func nextElement() throws(OffTheFastPath) -> Bool {
        try next(closing: UInt8(ascii: "]"))
    }

    private mutating func next(closing: UInt8) throws(OffTheFastPath) -> Bool {
        skipSpace()
        guard let byte = peek() else { throw OffTheFastPath() }
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == closing { return false }
        throw OffTheFastPath()
    }

    /// The value at the current byte, which `depth` containers enclose, parsed by JSONCore.
    private mutating func value(depth: Int) throws(OffTheFastPath) -> JSONValue {
        do {
            let (value, end) = try values.value(at: index, depth: depth)
            index = end
            return value
        } catch {
            throw OffTheFastPath()
        }
    }

    private mutating func skipValue(depth: Int) throws(OffTheFastPath) {
        _ = try value(depth: depth)
    }
}
