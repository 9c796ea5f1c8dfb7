import JSONCore

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
    private var scanner: JSONScanner

    init(_ bytes: UnsafeRawBufferPointer) {
        scanner = JSONScanner(bytes)
    }

    /// The members of the object in `{"data": {…}}` that `keys` lists, as a reader for the model.
    ///
    /// Not generic over the model: a generic reader, called from another module, ran unspecialised
    /// and looked up type metadata (`Optional<T>` and the like) on every answer.
    mutating func object(keys: DataSyncWireKeys, kind: String) throws(OffTheFastPath) -> DataSyncWireReader {
        var object: DataSyncWireReader?
        try readRoot { reader, name throws(OffTheFastPath) in
            if name == .data {
                guard object == nil, reader.scanner.peek() == UInt8(ascii: "{") else { throw OffTheFastPath() }
                object = try reader.members(keys: keys, kind: kind, depth: 1)
            } else {
                try reader.scanner.skipValue(depth: 1)
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
                meta = try reader.scanner.value(depth: 1)
            case .other:
                try reader.scanner.skipValue(depth: 1)
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
        scanner.skipSpace()
        try scanner.consume(UInt8(ascii: "{"))
        if try scanner.objectHasMembers() {
            repeat {
                let (start, count) = try name()
                try member(&self, rootName(start: start, count: count))
            } while try scanner.nextMember()
        }
        guard scanner.atEndAfterSpace() else { throw OffTheFastPath() }
    }

    private func rootName(start: Int, count: Int) -> RootName {
        guard count == 4 else { return .other }
        let word = scanner.bytes.loadUnaligned(fromByteOffset: start, as: UInt32.self)
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
        try scanner.consume(UInt8(ascii: "["))
        scanner.skipSpace()
        if scanner.peek() == UInt8(ascii: "]") {
            scanner.index += 1
            return
        }
        repeat {
            scanner.skipSpace()
            guard scanner.peek() == UInt8(ascii: "{") else { throw OffTheFastPath() }
            try model(members(keys: keys, kind: kind, depth: 2))
        } while try scanner.nextElement()
    }

    /// One object, which `depth` containers enclose: the members `keys` lists into slots (the
    /// last of a repeated name wins, as in a parsed object), the rest parsed and dropped.
    private mutating func members(
        keys: DataSyncWireKeys, kind: String, depth: Int
    ) throws(OffTheFastPath) -> DataSyncWireReader {
        var slots = [JSONValue?](repeating: nil, count: keys.names.count)
        try scanner.consume(UInt8(ascii: "{"))
        if try scanner.objectHasMembers() {
            repeat {
                let (start, count) = try name()
                if let slot = keys.slot(of: scanner.bytes, start: start, count: count) {
                    slots[slot] = try scanner.value(depth: depth + 1)
                } else {
                    try scanner.skipValue(depth: depth + 1)
                }
            } while try scanner.nextMember()
        }
        return DataSyncWireReader(kind: kind, keys: keys, values: slots)
    }

    /// A member name and its `:`, as the offset and length of its bytes. Only plain names (printable
    /// ASCII, no escape) are read here: their bytes are their text.
    private mutating func name() throws(OffTheFastPath) -> (start: Int, count: Int) {
        scanner.skipSpace()
        try scanner.consume(UInt8(ascii: "\""))
        let start = scanner.index
        guard let end = scanner.plainStringEnd(from: start) else { throw OffTheFastPath() }
        scanner.index = end + 1
        scanner.skipSpace()
        try scanner.consume(UInt8(ascii: ":"))
        scanner.skipSpace()
        return (start, end - start)
    }
}
