import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// The console's files are served by the emulator itself, from the module (no bundle to find),
/// with no external asset.
@Suite("Web console files over HTTP")
struct ConsoleFileTests {
    @Test(
        "index, script and style are served with their types and a same-origin-only policy",
        arguments: [
            ("/_emulator/console/", "text/html; charset=utf-8"),
            ("/_emulator/console/index.html", "text/html; charset=utf-8"),
            ("/_emulator/console/console.js", "text/javascript; charset=utf-8"),
            ("/_emulator/console/console.css", "text/css; charset=utf-8"),
        ])
    func served(path: String, type: String) async throws {
        try await withServed { served in
            let reply = try await served.send("GET", path)
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == type)
            #expect(reply.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
            #expect(reply.header("X-Content-Type-Options") == "nosniff")
            #expect(reply.body.count > 1_000)
            // Nothing is loaded from anywhere else.
            #expect(
                !reply.text.contains("https://") && !reply.text.contains("http://"), "\(path) names an external URL")
        }
    }

    @Test("the page loads only its own script and style, and the script talks only to the emulator")
    func pageReferences() async throws {
        try await withServed { served in
            let page = try await served.send("GET", "/_emulator/console/").text
            #expect(page.contains(#"<script src="console.js" defer></script>"#))
            #expect(page.contains(#"<link rel="stylesheet" href="console.css">"#))
            #expect(!page.contains("<script>") && !page.contains("style="))
            let script = try await served.send("GET", "/_emulator/console/console.js").text
            #expect(script.contains(#"const ADMIN = "/_emulator/v1";"#))
            #expect(script.contains(#"const REST = "/v1/datasync/subkeys/";"#))
            #expect(!script.contains("innerHTML"), "server data is rendered as text only")
        }
    }

    @Test("an unknown console file is a 404")
    func unknown() async throws {
        try await withServed { served in
            let unknown = try await served.send("GET", "/_emulator/console/app.js")
            let nested = try await served.send("GET", "/_emulator/console/a/index.html")
            #expect(unknown.status == 404)
            #expect(nested.status == 404)
        }
    }
}
