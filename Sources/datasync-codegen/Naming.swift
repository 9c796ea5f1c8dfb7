/// Swift names for class, property, payload-key and projection names.
enum Naming {
    /// Words that need backticks to be used as a name.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "Any", "as", "await", "false", "is", "nil", "super", "throws", "true", "try",
    ]

    /// Names that cannot name a member even in backticks (`X.self`, `X.Type`, `init`), or that
    /// would shadow a module the generated code names: an underscore is appended.
    static let unusable: Set<String> = [
        "self", "Self", "Type", "Protocol", "init", "deinit", "subscript", "_", "Swift", "JSONCore", "FilterExpression",
    ]

    /// `text` as an identifier: kept as written when it is one (ASCII letters, digits and `_`, not
    /// starting with a digit); otherwise its ASCII letters and digits in lower camel case (upper
    /// when `upper`), `_` first when it would start with a digit, `field` when nothing is left.
    static func identifier(_ text: String, upper: Bool = false) -> String {
        var name: String
        if isPlainIdentifier(text) {
            name = text
        } else {
            var words: [String] = []
            var current = ""
            for scalar in text.unicodeScalars {
                if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" {
                    current.unicodeScalars.append(scalar)
                } else if !current.isEmpty {
                    words.append(current)
                    current = ""
                }
            }
            if !current.isEmpty { words.append(current) }
            name = words.enumerated().map { index, word in
                index == 0 ? word : word.prefix(1).uppercased() + word.dropFirst()
            }.joined()
            if name.isEmpty { name = "field" }
            if let first = name.unicodeScalars.first, ("0"..."9").contains(first) { name = "_" + name }
            if !upper, let first = name.first { name = first.lowercased() + name.dropFirst() }
        }
        if upper, let first = name.first { name = first.uppercased() + name.dropFirst() }
        if unusable.contains(name) { name += "_" }
        return name
    }

    static func isPlainIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
        }
    }

    /// `name` as written in a declaration or a reference: in backticks when it is a keyword.
    static func spelled(_ name: String) -> String { keywords.contains(name) ? "`\(name)`" : name }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `text` safe inside a one-line doc comment: control characters shown as `\u{…}`, backticks
    /// kept.
    static func comment(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Hands out names unique within one scope: a taken name gets `_2`, `_3`, … in the order asked.
struct NameScope {
    private var taken: Set<String>

    init(reserved: Set<String> = []) { taken = reserved }

    mutating func claim(_ name: String) -> String {
        var candidate = name
        var counter = 2
        while taken.contains(candidate) {
            candidate = name + "_\(counter)"
            counter += 1
        }
        taken.insert(candidate)
        return candidate
    }
}
