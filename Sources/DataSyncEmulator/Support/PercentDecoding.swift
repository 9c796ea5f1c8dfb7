import Foundation
import JSONCore

/// Percent-decoding of request targets. The server hands the target over still encoded; path
/// segments are split on `/` before decoding so an id holding `%2F` stays one segment.
package enum PercentDecoding {
    /// Decodes `%XX` escapes into UTF-8 text, or returns nil for a broken escape or invalid UTF-8.
    /// `+` is kept as a plus sign: DataSync clients encode spaces as `%20`.
    package static func decode(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(HexDigit.value),
                    let low = iterator.next().flatMap(HexDigit.value)
                else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    /// Splits a raw query into decoded name/value pairs in order. A name without `=` has an
    /// empty value. Returns nil when any part fails to decode.
    package static func queryItems(_ rawQuery: String) -> [(name: String, value: String)]? {
        var items: [(name: String, value: String)] = []
        for part in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(pieces[0]) else { return nil }
            let value = pieces.count > 1 ? decode(pieces[1]) : ""
            guard let value else { return nil }
            items.append((name, value))
        }
        return items
    }

    /// Encodes a query value: everything but RFC 3986 unreserved characters is escaped.
    package static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
            }
        }
        return out
    }
}
