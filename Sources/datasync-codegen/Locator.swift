/// Finds where an RFC 6901 pointer's value starts in a JSON text, for compiler-style diagnostics
/// (`file:line:column: error: …`). A pointer to a missing member resolves to the deepest value on
/// its path that exists; an unreadable text resolves to the start.
struct JSONLocator {
    let bytes: [UInt8]

    /// The 1-based line and column (in bytes) of the value `pointer` names.
    func location(of pointer: String) -> (line: Int, column: Int) {
        location(ofOffset: offset(of: tokens(of: pointer)))
    }

    /// The 1-based line and column of a byte offset.
    func location(ofOffset offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[0..<min(max(offset, 0), bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }

    func offset(of path: [String]) -> Int {
        var index = 0
        skipSpace(&index)
        var best = index
        for token in path {
            guard index < bytes.count else { break }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard let found = member(token, inObjectAt: index) else { return best }
                index = found
            case UInt8(ascii: "["):
                guard let position = Int(token), let found = element(position, inArrayAt: index) else { return best }
                index = found
            default:
                return best
            }
            best = index
        }
        return best
    }

    private func member(_ key: String, inObjectAt start: Int) -> Int? {
        var index = start + 1
        while true {
            skipSpace(&index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            guard let name = string(&index) else { return nil }
            skipSpace(&index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipSpace(&index)
            if name == key { return index }
            guard skipValue(&index) else { return nil }
            skipSpace(&index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    private func element(_ position: Int, inArrayAt start: Int) -> Int? {
        var index = start + 1
        var count = 0
        while true {
            skipSpace(&index)
            guard index < bytes.count, bytes[index] != UInt8(ascii: "]") else { return nil }
            if count == position { return index }
            guard skipValue(&index) else { return nil }
            skipSpace(&index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
            count += 1
        }
    }

    private func skipSpace(_ index: inout Int) {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// Reads a string at `index` (on its opening quote), decoding the escapes keys may use.
    private func string(_ index: inout Int) -> String? {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            if !raw.isEmpty {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                flush()
                return String(scalars)
            }
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                flush()
                let escaped = bytes[index + 1]
                index += 2
                switch escaped {
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                    else { return nil }
                    index += 4
                    scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: scalars.append(Unicode.Scalar(escaped))
                }
                continue
            }
            raw.append(byte)
            index += 1
        }
        return nil
    }

    private func skipValue(_ index: inout Int) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return string(&index) != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard string(&index) != nil else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return true
                    }
                default: break
                }
                index += 1
            }
            return false
        default:
            let stops: [UInt8] = [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")]
            while index < bytes.count, !stops.contains(bytes[index]) { index += 1 }
            return true
        }
    }
}
