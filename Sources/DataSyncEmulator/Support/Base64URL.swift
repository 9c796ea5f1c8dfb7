import Foundation

/// Base64url without padding (RFC 4648 §5), the alphabet cursors use so they travel in a query
/// string without escaping.
package enum Base64URL {
    package static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes `text`, or returns nil when it is not base64url.
    package static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ isAlphabet($0) }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch standard.utf8.count % 4 {
        case 0: break
        case 2: standard += "=="
        case 3: standard += "="
        default: return nil
        }
        guard let data = Data(base64Encoded: standard) else { return nil }
        return [UInt8](data)
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
