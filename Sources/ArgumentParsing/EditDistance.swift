/// Edit distances and "did you mean" suggestions for mistyped commands, options and values.
package enum EditDistance {
    /// The optimal-string-alignment distance between `a` and `b`: insertions, deletions,
    /// substitutions and swaps of two neighbouring characters each cost 1 (`lsit` → `list` is 1).
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, rows[i - 2][j - 2] + 1)
                }
                rows[i][j] = best
            }
        }
        return rows[a.count][b.count]
    }

    /// The candidate nearest to `input`, or nil when none is close enough to be a likely typo.
    ///
    /// Close enough: an edit distance of at most a third of the input's length (at least 2),
    /// compared without case and without leading dashes; failing that, a candidate that contains
    /// the input as a whole dash-separated part or starts with it, such as `version` for
    /// `--class-version`. Ties go to the earlier candidate.
    package static func suggestion(for input: String, among candidates: [String]) -> String? {
        let typed = normalized(input)
        guard !typed.isEmpty else { return nil }
        let limit = max(2, typed.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let measured = distance(typed, normalized(candidate))
            if measured <= limit, best.map({ measured < $0.distance }) ?? true {
                best = (candidate, measured)
            }
        }
        if let best { return best.candidate }
        guard typed.count >= 3 else { return nil }
        return candidates.first { candidate in
            let parts = normalized(candidate).split(separator: "-").map(String.init)
            return parts.contains(typed) || normalized(candidate).hasPrefix(typed)
        }
    }

    private static func normalized(_ text: String) -> String {
        String(text.drop { $0 == "-" }).lowercased()
    }
}
