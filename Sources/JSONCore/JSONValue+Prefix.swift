import Foundation

/// Parses single JSON values at chosen offsets of a larger buffer, for a decoder that walks a
/// document's fixed outer shape itself and wants a ``JSONValue`` only for some members (the
/// subscribe-answer decoder reads envelopes from the bytes and keeps each payload as a value).
///
/// The buffer must stay valid while the reader is used. One reader is meant to serve a whole
/// document: its scratch storage is reused from one value to the next.
package struct JSONValueReader {
    private var parser: JSONParser

    /// Whether the `count` bytes at `first` and at `second` of `bytes` are the same, for a reader
    /// that reuses a `String` it made from an earlier occurrence of the same text.
    @inline(__always)
    package static func bytesEqual(_ bytes: UnsafeRawBufferPointer, _ first: Int, _ second: Int, count: Int) -> Bool {
        guard count > 0, let base = bytes.baseAddress else { return true }
        return memcmp(base + first, base + second, count) == 0
    }

    /// How many slots the parser's member-name cache has: 0 until a second object begins, for
    /// tests that count what a parse builds.
    package var nameCacheSlots: Int { parser.nameCache.count }

    /// A reader over `bytes`; `options` apply to every value read, with the nesting limit counted
    /// from the document's root (see ``value(at:depth:)``).
    package init(_ bytes: UnsafeRawBufferPointer, options: JSONParsingOptions = JSONParsingOptions()) {
        parser = JSONParser(bytes: bytes, options: options)
    }

    /// Parses the value that starts exactly at `offset` (white space there is an error) and
    /// returns it with the offset just past its last byte. What follows the value is not looked at.
    ///
    /// - Parameter depth: how many arrays and objects of the document enclose the value, so the
    ///   nesting limit applies as it would to a parse of the whole document.
    /// - Throws: ``JSONError`` as ``JSONValue/init(parsing:options:)`` does, with offsets into
    ///   the whole buffer.
    package mutating func value(at offset: Int, depth: Int) throws -> (value: JSONValue, end: Int) {
        parser.index = offset
        parser.depth = depth
        let value = try parser.parseValue()
        return (value, parser.index)
    }
}
