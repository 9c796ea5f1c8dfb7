import EmulatorHTTP

/// The web console's files (`Sources/DataSyncEmulator/Console`), compiled into the module as
/// SwiftPM resources (`.embedInCode`), so the console works wherever the library or the
/// `datasync-emulator` binary runs, with no resource bundle to find at run time.
enum ConsoleAssets {
    /// Only the console's own files may load; no external asset, no inline script or style.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The answer for the console file `name` (`""` is `index.html`), or nil when there is none.
    static func asset(named name: String) -> ServerResponse? {
        let body: [UInt8]
        let type: String
        switch name {
        case "", "index.html":
            body = PackageResources.index_html
            type = "text/html; charset=utf-8"
        case "console.css":
            body = PackageResources.console_css
            type = "text/css; charset=utf-8"
        case "console.js":
            body = PackageResources.console_js
            type = "text/javascript; charset=utf-8"
        default:
            return nil
        }
        return ServerResponse(
            status: 200,
            headers: [
                (name: "Content-Type", value: type), (name: "Cache-Control", value: "no-store"),
                (name: "Content-Security-Policy", value: contentSecurityPolicy),
                (name: "X-Content-Type-Options", value: "nosniff"), (name: "Referrer-Policy", value: "no-referrer"),
            ],
            body: body)
    }
}
