/// What a keyset may be named (its subscribe key), wherever a keyset comes into being: a DataSync
/// request, a seed or class document, an import, the configuration.
///
/// `.` and `..` are refused because a browser (the web console, any page using `fetch`) resolves
/// them as path steps before the request leaves: `/_emulator/v1/keysets/../reset` arrives as
/// `/_emulator/v1/reset`, which resets every keyset. The empty name has no path segment at all.
enum KeysetName {
    /// Why `subscribeKey` cannot name a keyset, or nil when it can.
    static func refusal(_ subscribeKey: String) -> String? {
        switch subscribeKey {
        case "": return "a subscribe key cannot be empty"
        case ".", "..":
            return "a subscribe key cannot be \"\(subscribeKey)\" (a browser resolves it as a path step, so the "
                + "request would reach another route)"
        default: return nil
        }
    }
}
