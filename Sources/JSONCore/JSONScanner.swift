/// A byte reader met something it does not read itself; the tree decoder decides what the
/// document is (and gives the error, if there is one).
package struct OffTheFastPath: Error {
    package init() {}
}

/// The structural steps of a reader that walks a document's known outer shape straight from its
/// bytes (braces, commas, colons, plain member names) and leaves every value it does not read
/// itself to ``JSONValueReader``, which also checks every byte it passes over.
///
/// It accepts only what is certainly well-formed and throws ``OffTheFastPath`` otherwise, so the
/// reader built on it can hand the document to the tree decoder. The DataSync answer reader walks
/// its answers with it.
///
/// The buffer must stay valid while the scanner is used.
package struct JSONScanner {
    /// The document.
    package let bytes: UnsafeRawBufferPointer
    /// The reading position: the offset of the next byte to read.
    package var index = 0
    @usableFromInline var values: JSONValueReader

    /// A scanner at the start of `bytes`.
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        values = JSONValueReader(bytes)
    }

    /// The byte at the reading position, nil at the end.
    @inlinable @inline(__always)
    package func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// Moves past JSON white space.
    @inlinable @inline(__always)
    package mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Moves past `byte`, which must be the next one.
    @inlinable @inline(__always)
    package mutating func consume(_ byte: UInt8) throws(OffTheFastPath) {
        guard peek() == byte else { throw OffTheFastPath() }
        index += 1
    }

    /// After an object's `{`: false (past the `}`) when it is empty, true (at the first member)
    /// otherwise.
    @inlinable
    package mutating func objectHasMembers() throws(OffTheFastPath) -> Bool {
        skipSpace()
        guard let byte = peek() else { throw OffTheFastPath() }
        guard byte == UInt8(ascii: "}") else { return true }
        index += 1
        return false
    }

    /// After a member's value: true (past the `,`) when another member follows, false (past the
    /// `}`) at the end of the object.
    @inlinable
    package mutating func nextMember() throws(OffTheFastPath) -> Bool {
        try next(closing: UInt8(ascii: "}"))
    }

    /// After an array item: true (past the `,`) when another item follows, false (past the `]`)
    /// at the end of the array.
    @inlinable
    package mutating func nextElement() throws(OffTheFastPath) -> Bool {
        try next(closing: UInt8(ascii: "]"))
    }

    @inlinable
    mutating func next(closing: UInt8) throws(OffTheFastPath) -> Bool {
        skipSpace()
        switch peek() {
        case UInt8(ascii: ","):
            index += 1
            return true
        case closing:
            index += 1
            return false
        default:
            throw OffTheFastPath()
        }
    }

    /// The offset of the closing quote of the string whose text starts at `start` (just after its
    /// opening quote), when that text is plain: printable ASCII with no escape, so its bytes are
    /// its text. Nil for any other string (or none), which JSONCore must decode.
    @inlinable @inline(__always)
    package func plainStringEnd(from start: Int) -> Int? {
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { return position }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            position += 1
        }
        return nil
    }

    /// The value at the reading position, which `depth` containers enclose (so JSONCore's nesting
    /// limit holds as in a whole-document parse), parsed by JSONCore; the position moves past it.
    package mutating func value(depth: Int) throws(OffTheFastPath) -> JSONValue {
        do {
            let (value, end) = try values.value(at: index, depth: depth)
            index = end
            return value
        } catch {
            throw OffTheFastPath()
        }
    }

    /// Moves past the value at the reading position, checking it as ``value(depth:)`` does.
    package mutating func skipValue(depth: Int) throws(OffTheFastPath) {
        _ = try value(depth: depth)
    }

    /// After the root value: whether only white space follows it.
    package mutating func atEndAfterSpace() -> Bool {
        skipSpace()
        return index == bytes.count
    }
}
