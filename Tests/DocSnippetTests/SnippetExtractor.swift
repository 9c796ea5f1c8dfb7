/// One ```swift block of a Markdown document.
struct Snippet: Equatable {
    /// The document's path relative to the package root, as compiler messages will name it.
    var document: String
    /// The line (from 1) of the first line of code, just after the opening fence.
    var line: Int
    /// The code, without the fence's indentation.
    var lines: [String]
    /// For a block marked `<!-- snippet: stand-in NAME (reason) -->`: the module it imports that
    /// this package does not have (swift-log's `Logging`, Apple's `os`), type-checked on its own
    /// against a stand-in that declares the part of that module's API the block uses
    /// (``StandInModules``).
    var standIn: String? = nil
}

/// A block marked `<!-- snippet: skip (reason) -->`, reported instead of compiled.
struct SkippedSnippet: Equatable {
    var document: String
    var line: Int
    var reason: String
}

/// Finds the ```swift blocks of a Markdown text. Blocks in other languages (shell, output, plain
/// ``` blocks) are not code to compile and are ignored.
enum SnippetExtractor {
    static let skipMarker = "<!-- snippet: skip"
    static let standInMarker = "<!-- snippet: stand-in "

    static func extract(_ text: String, document: String) -> (snippets: [Snippet], skipped: [SkippedSnippet]) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var snippets: [Snippet] = []
        var skipped: [SkippedSnippet] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix("```") else {
                index += 1
                continue
            }
            let indent = line.count - trimmed.count
            let language = trimmed.dropFirst(3).trimmingSpaces()
            var body: [String] = []
            var end = index + 1
            while end < lines.count, lines[end].trimmingSpaces() != "```" {
                body.append(String(lines[end].dropFirst(min(indent, leadingSpaces(lines[end])))))
                end += 1
            }
            if language == "swift" {
                let previous = index > 0 ? lines[index - 1].trimmingSpaces() : ""
                if previous.hasPrefix(skipMarker) {
                    skipped.append(SkippedSnippet(document: document, line: index + 2, reason: reason(previous)))
                } else if previous.hasPrefix(standInMarker) {
                    let module = previous.dropFirst(standInMarker.count).prefix { $0.isLetter || $0.isNumber }
                    snippets.append(
                        Snippet(document: document, line: index + 2, lines: body, standIn: String(module)))
                } else {
                    snippets.append(Snippet(document: document, line: index + 2, lines: body))
                }
            }
            index = end + 1
        }
        return (snippets, skipped)
    }

    /// Whether a document opts in to `package` access (`<!-- snippets: package -->`): only for
    /// articles written for code inside this package, such as a new feature module.
    static func wantsPackageAccess(_ text: String) -> Bool {
        text.contains("<!-- snippets: package -->")
    }

    private static func reason(_ marker: String) -> String {
        guard let open = marker.firstIndex(of: "("), let close = marker.lastIndex(of: ")"), open < close else {
            return "no reason given"
        }
        return String(marker[marker.index(after: open)..<close])
    }

    private static func leadingSpaces(_ line: String) -> Int {
        line.prefix { $0 == " " }.count
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
