import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// Issue 35, item 12, in the browser: a console link with a malformed escape still loads, and a
/// keyset named `..` cannot make the console reset every keyset. An extension of the console
/// suite, so it runs serialized with the other browser tests.
extension ConsoleBrowserTests {
    @Test("a malformed #keyset escape still loads the console; a keyset `..` resets nothing else")
    func hostileAddresses() async throws {
        let seed: JSONValue = [
            "keysets": ["demo": ["users": [["id": "alice"]]], "other": ["users": [["id": "bob"]]]]
        ]
        let emulator = try Emulator(configuration: EmulatorConfiguration(seed: seed))
        try await withConsoleBrowser(emulator, log: "chromium-hostile.log") { _, browser, _ in
            try await driveHostile(emulator: emulator, browser: browser)
        }
    }

    private func driveHostile(emulator: Emulator, browser: Chromium) async throws {
        let page = try await DevToolsPage.connect(port: browser.port)
        try await page.call("Page.enable")
        let console = try #require(await emulator.consoleURL)
        // `%E0%A4` is a cut-short UTF-8 sequence: decodeURIComponent throws URIError on it.
        try await page.call(
            "Page.navigate", ["url": .string(console.absoluteString + "#keyset=%E0%A4&collection=users")])
        try await page.waitUntil("document.documentElement.dataset.ready === '1'", "the console to load")
        #expect(try await page.evaluate("state.keyset") == "demo")
        #expect(try await page.evaluate("JSON.stringify(window.__consoleErrors)") == "[]")

        // `..` and `.` are refused as path segments (escaping would not help: the URL standard
        // reads `%2E%2E` as `..` too); other names pass.
        let refused = "(v) => { try { return segment(v); } catch (error) { return 'refused: ' + error.message; } }"
        #expect(try await page.evaluate("(\(refused))('..')").stringValue?.hasPrefix("refused: ") == true)
        #expect(try await page.evaluate("(\(refused))('.')").stringValue?.hasPrefix("refused: ") == true)
        #expect(try await page.evaluate("(\(refused))('...')") == "...")
        #expect(try await page.evaluate("(\(refused))('a/b')") == "a%2Fb")
        // Reset a keyset named `..` as the console's button would (a state file from before the
        // emulator refused the name can hold one): nothing is sent, no keyset loses anything.
        _ = try await page.evaluate("window.confirm = () => true; state.keyset = '..'; resetKeyset()")
        let notice = try await page.evaluate("document.getElementById('notice').textContent").stringValue ?? ""
        #expect(notice.hasPrefix("Reset failed: \"..\" cannot be used in an address"), "\(notice)")
        for (keyset, id) in [("demo", "alice"), ("other", "bob")] {
            let response = await emulator.respond(
                to: ServerRequest(method: "GET", target: "/v1/datasync/subkeys/\(keyset)/users/\(id)"))
            #expect(response.status == 200, "\(keyset)/\(id) is gone")
        }
    }
}
