/// Matches a text against literal pieces separated by `*` wildcards, in time linear in the text
/// plus the pattern.
///
/// The first piece must start the text and the last must end it; the pieces between are found
/// left to right, each at its leftmost occurrence after the one before. Taking the leftmost
/// occurrence is never wrong with `*` as the only wildcard: it leaves the most room for the pieces
/// after it. Each middle piece is searched with Knuth–Morris–Pratt, so no text element is looked
/// at more than twice per piece that scans it, and the pieces scan disjoint stretches of the text.
///
/// `LikePattern` (over UTF-8 bytes) and the emulator's subscribe filter (over `Character`s) share
/// it, so neither can be made to run in O(text × pattern) by a hostile pattern.
package struct WildcardMatcher<Element: Equatable & Sendable>: Sendable {
    /// The literal runs between wildcards: one more than there are wildcards.
    package let pieces: [[Element]]
    /// Per piece, `borders[i]` is the length of the longest proper prefix of `piece[0...i]` that
    /// is also its suffix (the KMP failure function).
    private let borders: [[Int]]

    /// Prepares matching for `pieces` (at least one; an empty list is taken as one empty piece).
    package init(pieces: [[Element]]) {
        let pieces = pieces.isEmpty ? [[]] : pieces
        self.pieces = pieces
        borders = pieces.map(Self.borders(of:))
    }

    /// Whether `text` matches; `steps` grows by the number of element comparisons made, which is
    /// at most about twice the text's length plus the pattern's.
    package func matches(_ text: UnsafeBufferPointer<Element>, steps: inout Int) -> Bool {
        let first = pieces[0]
        guard pieces.count > 1 else {
            return text.count == first.count && Self.equal(text, at: 0, first, steps: &steps)
        }
        let last = pieces[pieces.count - 1]
        guard text.count >= first.count + last.count,
            Self.equal(text, at: 0, first, steps: &steps),
            Self.equal(text, at: text.count - last.count, last, steps: &steps)
        else { return false }
        var position = first.count
        let end = text.count - last.count
        for index in 1..<(pieces.count - 1) where !pieces[index].isEmpty {
            guard let found = find(index, in: text, from: position, to: end, steps: &steps) else { return false }
            position = found + pieces[index].count
        }
        return true
    }

    private static func equal(
        _ text: UnsafeBufferPointer<Element>, at offset: Int, _ piece: [Element], steps: inout Int
    ) -> Bool {
        guard offset >= 0, offset + piece.count <= text.count else { return false }
        for index in piece.indices {
            steps += 1
            if text[offset + index] != piece[index] { return false }
        }
        return true
    }

    /// The start of the leftmost occurrence of piece `index` lying wholly in `start..<end`.
    private func find(
        _ index: Int, in text: UnsafeBufferPointer<Element>, from start: Int, to end: Int, steps: inout Int
    ) -> Int? {
        let piece = pieces[index]
        let border = borders[index]
        var matched = 0
        var position = start
        // Stop once the rest of the text cannot hold the rest of the piece.
        while position < end, end - position >= piece.count - matched {
            while matched > 0, text[position] != piece[matched] {
                steps += 1
                matched = border[matched - 1]
            }
            steps += 1
            if text[position] == piece[matched] { matched += 1 }
            position += 1
            if matched == piece.count { return position - piece.count }
        }
        return nil
    }

    private static func borders(of piece: [Element]) -> [Int] {
        var border = [Int](repeating: 0, count: piece.count)
        var length = 0
        var index = 1
        while index < piece.count {
            while length > 0, piece[index] != piece[length] { length = border[length - 1] }
            if piece[index] == piece[length] { length += 1 }
            border[index] = length
            index += 1
        }
        return border
    }
}
