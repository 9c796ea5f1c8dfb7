import Foundation

/// Pieces of request text that tests writing raw HTTP to the emulator need again and again.
/// Written here from the wire rules, never taken from the SDK's request building, so a test of
/// the emulator does not agree with the SDK by construction. Package access: a test helper.
package enum WireText {
    /// The vendor media type of a DataSync write to `collection` (`users`, `channels`,
    /// `entities`, `memberships`; anything else is a relationship).
    package static func objectMediaType(collection: String) -> String {
        let resource: String
        switch collection {
        case "users": resource = "user"
        case "channels": resource = "channel"
        case "entities": resource = "entity"
        case "memberships": resource = "membership"
        default: resource = "relationship"
        }
        return "application/vnd.pubnub.objects.\(resource)+json;version=1"
    }

    /// `text` with everything but RFC 3986's unreserved characters percent-encoded, as Python's
    /// `quote(safe="~")` does.
    package static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
