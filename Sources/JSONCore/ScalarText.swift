import Foundation

/// Comparisons of Swift strings by their Unicode scalars rather than by canonical equivalence.
/// UTF-8 encodes scalars so that byte order is scalar order, so every operation works on the
/// bytes.
package enum ScalarText {
    /// Whether `lhs` and `rhs` hold the same scalars.
    @inline(__always)
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        let compared = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                guard let leftStart = leftBytes.baseAddress, let rightStart = rightBytes.baseAddress else {
                    return leftBytes.isEmpty
                }
                return memcmp(leftStart, rightStart, leftBytes.count) == 0
            }
        }
        if let compared, let compared { return compared }
        return left.elementsEqual(right)
    }

    /// Feeds the UTF-8 bytes of `text`, then a terminator no UTF-8 text contains, so that
    /// adjacent strings in a composite hash cannot run into each other.
    @inline(__always)
    package static func hash(_ text: String, into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
        hasher.combine(0xFF as UInt8)
    }

    /// Whether `lhs` sorts before `rhs` in Unicode scalar order.
    package static func less(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// A three-way comparison in Unicode scalar order: negative, zero or positive.
    package static func compare(_ lhs: String, _ rhs: String) -> Int {
        let compared = lhs.utf8.withContiguousStorageIfAvailable { leftBytes in
            rhs.utf8.withContiguousStorageIfAvailable { rightBytes in
                let common = Swift.min(leftBytes.count, rightBytes.count)
                if common > 0, let leftStart = leftBytes.baseAddress, let rightStart = rightBytes.baseAddress {
                    let order = memcmp(leftStart, rightStart, common)
                    if order != 0 { return order < 0 ? -1 : 1 }
                }
                return leftBytes.count == rightBytes.count ? 0 : (leftBytes.count < rightBytes.count ? -1 : 1)
            }
        }
        if let compared, let compared { return compared }
        return compareBytes(lhs.utf8, rhs.utf8)
    }

    private static func compareBytes(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Int {
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let a?, let b?):
                if a != b { return a < b ? -1 : 1 }
            }
        }
    }
}
