import Foundation
import JSONCore

/// A string compared by its Unicode scalars (equivalently, its UTF-8 bytes), never by Swift's
/// canonical equivalence: the key the store uses for ids, so `"\u{212B}"` (ANGSTROM SIGN) and
/// `"\u{00C5}"` (LATIN CAPITAL LETTER A WITH RING ABOVE), or NFC and NFD `café`, are different
/// objects, as they are different ids on the wire.
///
/// `String`'s own `==` and hashing treat canonically equivalent strings as equal, so a
/// `[String: …]` keyed by ids would let one id overwrite, find or collide with another.
struct ExactString: Hashable, Sendable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (left: ExactString, right: ExactString) -> Bool { left.text.isExactly(right.text) }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil {
            // A string without contiguous UTF-8 (bridged): the same bytes, fed the same way.
            Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}

extension String {
    /// Whether the two strings hold the same Unicode scalars (not merely canonically equivalent
    /// ones): the same UTF-8 bytes.
    func isExactly(_ other: String) -> Bool { ScalarText.equal(self, other) }
}

extension Optional where Wrapped == String {
    /// Whether both are nil or both hold the same Unicode scalars.
    func isExactly(_ other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): return true
        case (let left?, let right?): return left.isExactly(right)
        default: return false
        }
    }
}
