import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// The console's tool panels in headless Chromium: the class viewer and editor, the publish form
/// and the token helper. Runs like ``ConsoleBrowserTests`` (required when `CHROMIUM` is set).
@Suite("Console tool panels in headless Chromium", .serialized, .needsChromium, .timeLimit(.minutes(3)))
struct ConsoleToolsTests {
    private func send(_ emulator: Emulator, _ method: String, _ target: String) async -> (Int, JSONValue?) {
        let response = await emulator.respond(to: ServerRequest(method: method, target: target))
        return (response.status, try? JSONValue(parsing: response.body))
    }

    /// Sets a field's value from a JSON-quoted Swift string (never spliced into script text raw).
    /// Submits the form `form`, then waits until the element `result` shows `text`.
    private func submit(
        _ page: DevToolsPage, _ form: String, thenWaitFor text: String, in result: String, _ what: String
    ) async throws {
        _ = try await page.evaluate("document.getElementById('\(form)').requestSubmit()")
        try await page.waitUntil("document.getElementById('\(result)').textContent.includes('\(text)')", what)
    }

    private func fill(_ page: DevToolsPage, _ id: String, _ value: String) async throws {
        let quoted = try JSONValue.string(value).jsonString()
        _ = try await page.evaluate("document.getElementById('\(id)').value = \(quoted)")
    }

    @Test("the class panel lists, shows, creates, replaces and deletes classes through the class routes")
    func classPanel() async throws {
        let emulator = try Emulator()
        try await withConsoleBrowser(emulator, log: "chromium-classes.log") { _, browser, artifacts in
            let page = try await DevToolsPage.openConsole(
                of: emulator, in: browser, fragment: "#keyset=demo", width: 1400)
            try await page.waitUntil(
                #"document.querySelector('#class-list li[data-name="User"]')?.textContent.includes('Global')"#,
                "the built-in classes listed")
            _ = try await page.evaluate(#"document.querySelector('#class-list li[data-name="User"]').click()"#)
            let shown = try await page.evaluate("document.getElementById('class-json').textContent")
            #expect(shown.stringValue?.contains(#""ttlDays": 30"#) == true)
            // The editor is behind "Allow edits", like the object editor.
            let editorDisplay = "getComputedStyle(document.getElementById('class-editor')).display"
            #expect(try await page.evaluate(editorDisplay) == "none")
            _ = try await page.evaluate("document.getElementById('edit-mode').click()")
            #expect(try await page.evaluate(editorDisplay) == "flex")

            try await fill(
                page, "class-edit-json",
                #"{"name":"Product","ttlDays":90,"versions":[{"version":1,"properties":[{"name":"price","pointer":"/payload/price","type":"number","filtering":"full"}]}]}"#
            )
            _ = try await page.evaluate("document.getElementById('class-create').click()")
            try await page.waitUntil(
                #"document.querySelector('#class-list li[data-name="Product"]')?.textContent.includes('SubKey')"#,
                "the created class listed")
            var (status, body) = await send(emulator, "GET", "/v1/datasync/subkeys/demo/entity-classes/Product")
            #expect(status == 200)
            #expect(body?["data"]?["ttlDays"] == 90)

            // Replace: the editor holds the shown definition; change its lifetime.
            _ = try await page.evaluate(#"document.querySelector('#class-list li[data-name="Product"]').click()"#)
            let editable = try await page.evaluate("JSON.parse(document.getElementById('class-edit-json').value)")
            #expect(editable["name"] == "Product")
            #expect(editable["builtIn"] == nil)
            _ = try await page.evaluate(
                "{ const box = document.getElementById('class-edit-json'); const d = JSON.parse(box.value); "
                    + "d.ttlDays = 7; box.value = JSON.stringify(d); } "
                    + "document.getElementById('class-save').click()")
            try await page.waitUntil(
                #"document.getElementById('class-json').textContent.includes('"ttlDays": 7')"#, "the replaced class")
            (status, body) = await send(emulator, "GET", "/v1/datasync/subkeys/demo/entity-classes/Product")
            #expect(body?["data"]?["ttlDays"] == 7)

            // The service's refusal shows: built-in classes cannot be deleted.
            _ = try await page.evaluate(
                "window.confirm = () => true; "
                    + #"document.querySelector('#class-list li[data-name="User"]').click(); "#
                    + "document.getElementById('class-delete').click()")
            try await page.waitUntil(
                "document.getElementById('class-error').textContent.includes('built-in Global classes')",
                "the refusal to delete a built-in")

            _ = try await page.evaluate(
                #"document.querySelector('#class-list li[data-name="Product"]').click(); "#
                    + "document.getElementById('class-delete').click()")
            try await page.waitUntil(
                #"!document.querySelector('#class-list li[data-name="Product"]')"#, "the deleted class gone")
            (status, _) = await send(emulator, "GET", "/v1/datasync/subkeys/demo/entity-classes/Product")
            #expect(status == 404)

            // Relationship classes are listed by the same panel.
            _ = try await page.evaluate(
                "const k = document.getElementById('class-kind'); k.value = 'relationship-classes'; "
                    + "k.dispatchEvent(new Event('change'))")
            try await page.waitUntil(
                #"!!document.querySelector('#class-list li[data-name="Membership"]')"#, "the relationship classes")
            try await ConsoleBrowserTests.screenshot(page, to: artifacts.appendingPathComponent("console-classes.png"))
            #expect(try await page.evaluate("JSON.stringify(window.__consoleErrors)") == "[]")
        }
    }

    @Test("the publish form publishes through the publish route with meta, store and ttl, and reports refusals")
    func publishForm() async throws {
        let emulator = try Emulator()
        try await withConsoleBrowser(emulator, log: "chromium-publish.log") { _, browser, artifacts in
            let page = try await DevToolsPage.openConsole(of: emulator, in: browser, fragment: "#keyset=demo")
            // Not JSON: refused in the page, nothing sent.
            try await fill(page, "publish-channel", "lobby")
            try await fill(page, "publish-message", "{nope")
            try await submit(
                page, "publish-form", thenWaitFor: "not valid JSON", in: "publish-result", "the local refusal")
            #expect(!emulator.recentRequests().contains { $0.target.hasPrefix("/publish/") })

            try await fill(page, "publish-message", #"{"text":"hello from the console"}"#)
            try await fill(page, "publish-meta", #"{"lang":"en"}"#)
            try await fill(page, "publish-ttl", "2")
            try await submit(
                page, "publish-form", thenWaitFor: "Published on lobby at timetoken", in: "publish-result",
                "the publish acknowledged")
            let request = try #require(emulator.recentRequests().last { $0.target.hasPrefix("/publish/") })
            #expect(request.method == "POST")
            #expect(request.target.hasPrefix("/publish/demo/demo/0/lobby/0?"))
            #expect(request.target.contains("store=1"))
            #expect(request.target.contains("ttl=2"))
            let (_, stored) = await send(emulator, "GET", "/_emulator/v1/keysets/demo/messages?channel=lobby")
            let message = try #require(stored?["messages"]?.arrayValue?.first)
            #expect(message["message"] == ["text": "hello from the console"])
            #expect(message["meta"] == ["lang": "en"])
            #expect(message["publisher"] == "datasync-console")
            #expect(message["expiresAt"] != nil)

            // store off: delivered, not stored.
            _ = try await page.evaluate(
                "document.getElementById('publish-store').checked = false; "
                    + "document.getElementById('publish-ttl').value = ''; "
                    + "document.getElementById('publish-form').requestSubmit()")
            try await page.waitUntil(
                "document.querySelectorAll('#events li.message').length >= 2", "both messages in the live events")
            let (_, after) = await send(emulator, "GET", "/_emulator/v1/keysets/demo/messages?channel=lobby")
            #expect(after?["messages"]?.arrayValue?.count == 1)
            try await ConsoleBrowserTests.screenshot(page, to: artifacts.appendingPathComponent("console-publish.png"))
            #expect(try await page.evaluate("JSON.stringify(window.__consoleErrors)") == "[]")
        }
    }

    @Test("the token helper mints with the keyset's secret key without showing it, parses, and the token works")
    func tokenHelper() async throws {
        let secretKey = "sec-c-console-must-never-show"
        let emulator = try Emulator(
            configuration: EmulatorConfiguration(
                pubSub: PubSubConfiguration(keysets: [
                    .protected(publishKey: "pub", subscribeKey: "sub", secretKey: secretKey)
                ])))
        try await withConsoleBrowser(emulator, log: "chromium-tokens.log") { _, browser, artifacts in
            let page = try await DevToolsPage.openConsole(
                of: emulator, in: browser, fragment: "#secret=\(emulator.adminSecret)&keyset=sub", width: 1400)
            // Without a token the publish form shows the service's 403.
            try await fill(page, "publish-channel", "room-1")
            try await fill(page, "publish-message", #""hi""#)
            try await submit(page, "publish-form", thenWaitFor: "403", in: "publish-result", "the publish refused")

            // A bad line is refused in the page.
            try await fill(page, "token-resources", "channels=room-1")
            try await submit(
                page, "token-mint-form", thenWaitFor: "BUCKET=NAME=PERMS", in: "token-error",
                "the malformed line refused")

            try await fill(page, "token-resources", "channels=room-1=rw")
            try await fill(page, "token-patterns", "uuids=.*=g")
            try await fill(page, "token-user", "datasync-console")
            try await fill(page, "token-ttl", "15")
            try await submit(
                page, "token-mint-form", thenWaitFor: "room-1 = rw", in: "token-details", "the minted token parsed")
            let details = try await page.evaluate("document.getElementById('token-details').textContent")
            #expect(details.stringValue?.contains("datasync-console") == true)
            #expect(details.stringValue?.contains(".* = g") == true)
            #expect(details.stringValue?.contains("15 min") == true)
            let token = try #require(
                try await page.evaluate("document.getElementById('token-output').value").stringValue)
            #expect(!token.isEmpty)
            // The secret key is nowhere on the page, nor in anything the page fetched.
            let html = try await page.evaluate("document.documentElement.outerHTML")
            #expect(html.stringValue?.contains(secretKey) == false)
            let fetched = try await page.evaluate(
                "performance.getEntriesByType('resource').map(e => e.name).join(' ')")
            #expect(fetched.stringValue?.contains(secretKey) == false)

            // Used in the console, the token lets the publish through.
            _ = try await page.evaluate("document.getElementById('token-use').click()")
            try await submit(
                page, "publish-form", thenWaitFor: "Published on room-1", in: "publish-result",
                "the publish with the minted token")

            // Parsing a token typed in: one that is not a token gets the emulator's reason.
            try await fill(page, "token-input", "garbage!")
            try await submit(
                page, "token-parse-form", thenWaitFor: "not a token", in: "token-error", "the parse refusal")
            try await ConsoleBrowserTests.screenshot(page, to: artifacts.appendingPathComponent("console-tokens.png"))
            #expect(try await page.evaluate("JSON.stringify(window.__consoleErrors)") == "[]")
        }
    }
}
