import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Testing
import Transport

/// The web console in a real browser: headless Chromium (Debian's package) loads the console of
/// an emulator started here; an object created through the SDK appears in the list and in the
/// live event stream. Screenshots are kept under `.build/test-artifacts/console/`.
///
/// When `CHROMIUM` is set (`.ci/run` sets it) the test must run and pass: a missing or broken
/// browser is a failure. Without it, the test runs when `/usr/bin/chromium` exists and is skipped
/// otherwise.
@Suite("Web console in headless Chromium", .serialized, .needsChromium, .timeLimit(.minutes(3)))
struct ConsoleBrowserTests {
    /// `<package>/.build/test-artifacts/console`, made if needed.
    static func artifacts() throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let directory = root.appendingPathComponent(".build/test-artifacts/console")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static let seed: JSONValue = [
        "keysets": [
            "demo": [
                "users": [["id": "alice", "status": "active", "payload": ["name": "Alice"]]],
                "channels": [["id": "general", "payload": ["name": "General"]]],
                "memberships": [["id": "m1", "channelId": "general", "userId": "alice"]],
            ]
        ]
    ]

    @Test("an object created through the SDK appears in the console's list and live event stream")
    func objectAppearsLive() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(seed: Self.seed))
        try await withConsoleBrowser(emulator, log: "chromium.log") { base, browser, artifacts in
            try await drive(emulator: emulator, base: base, browser: browser, artifacts: artifacts)
        }
    }

    private func drive(emulator: Emulator, base: URL, browser: Chromium, artifacts: URL) async throws {
        let page = try await DevToolsPage.openConsole(
            of: emulator, in: browser, fragment: "#keyset=demo&collection=users", width: 1280)
        try await page.waitUntil(
            #"document.querySelector('#object-table tbody tr[data-id="alice"]')"#, "the seeded user in the list")
        #expect(try await page.evaluate("document.title") == "DataSync emulator console")

        // Create a user through the SDK, over HTTP, with a token the request log must not show.
        let host = try #require(base.host)
        let port = try #require(base.port)
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "demo", subscribeKey: "demo", userId: "console-test", authToken: "sdk-token-xyz",
                origin: "\(host):\(port)", useSecureConnections: false, transport: try CurlHTTPClient()))
        let created = try await pubnub.dataSync.createUser(
            classVersion: 1, id: "ada", status: "active", payload: ["name": "Ada Lovelace"] as JSONValue)
        #expect(created.id == "ada")

        try await page.waitUntil(
            #"document.querySelector('#object-table tbody tr[data-id="ada"]')"#, "the new user in the list")
        try await page.waitUntil(
            #"[...document.querySelectorAll('#events li')].some(li => li.dataset.kind === 'change' && li.dataset.id === 'ada' && li.classList.contains('create'))"#,
            "the create in the live event stream")
        try await page.waitUntil(
            #"[...document.querySelectorAll('#requests li')].some(li => li.textContent.includes('POST /v1/datasync/subkeys/demo/users') && li.textContent.includes('201'))"#,
            "the SDK's POST in the request log")
        let requestLog = try await page.evaluate("document.getElementById('requests').textContent")
        #expect(requestLog.stringValue?.contains("auth=REDACTED") == true)
        #expect(requestLog.stringValue?.contains("sdk-token-xyz") == false)
        #expect(
            try await page.evaluate("document.querySelector('nav [data-collection=users] .count').textContent") == "2")

        // Open the object: its JSON and its history.
        _ = try await page.evaluate(#"document.querySelector('#object-table tbody tr[data-id="ada"]').click()"#)
        try await page.waitUntil(
            "document.getElementById('detail-json').textContent.includes('Ada Lovelace') && "
                + "document.querySelectorAll('#history li.create').length === 1",
            "the object's JSON and history")
        // Read-only by default: the edit controls are hidden.
        #expect(
            try await page.evaluate("getComputedStyle(document.getElementById('edit-box')).display") == "none")
        // Presence per channel.
        _ = try await pubnub.dataSync.getUser(id: "ada")
        let heartbeat = try await CurlHTTPClient().send(
            HTTPRequest(
                method: .get, scheme: "http", host: host, port: port,
                path: "/v2/presence/sub-key/demo/channel/general/heartbeat",
                queryItems: [HTTPQueryItem(name: "uuid", value: "ada")]))
        #expect(heartbeat.status == 200)
        try await page.waitUntil(
            "document.getElementById('presence').textContent.includes('ada')", timeout: .seconds(15),
            "ada present on general")

        let errors = try await page.evaluate("JSON.stringify(window.__consoleErrors)")
        #expect(errors == "[]", "JavaScript errors in the console page")

        try await Self.screenshot(page, to: artifacts.appendingPathComponent("console.png"))

        // Edits are opt-in and go through the REST API: a PUT with the row's eTag as If-Match.
        _ = try await page.evaluate("document.getElementById('edit-mode').click()")
        #expect(
            try await page.evaluate("getComputedStyle(document.getElementById('edit-box')).display") == "block")
        _ = try await page.evaluate(
            #"document.getElementById('edit-json').value = JSON.stringify({entityClassVersion: 1, status: "away", payload: {name: "Ada"}})"#
        )
        _ = try await page.evaluate("document.getElementById('save').click()")
        try await page.waitUntil(
            #"document.querySelector('#object-table tbody tr[data-id="ada"] td:nth-child(3)')?.textContent === 'away'"#,
            "the saved status in the list")
        try await page.waitUntil(
            #"[...document.querySelectorAll('#events li')].some(li => li.dataset.id === 'ada' && li.classList.contains('update'))"#,
            "the update in the live event stream")
        #expect(try await pubnub.dataSync.getUser(id: "ada").status == "away")
        let put = emulator.recentRequests().last { $0.method == "PUT" }
        #expect(put?.target.hasPrefix("/v1/datasync/subkeys/demo/users/ada?") == true)
        #expect(put?.status == 200)
        try await Self.screenshot(page, to: artifacts.appendingPathComponent("console-editing.png"))
        let lateErrors = try await page.evaluate("JSON.stringify(window.__consoleErrors)")
        #expect(lateErrors == "[]", "JavaScript errors in the console page")
    }

    @Test("with access control on, the console needs the admin secret and reads data only with a token")
    func protectedKeyset() async throws {
        let emulator = try Emulator(
            configuration: EmulatorConfiguration(
                seed: ["keysets": ["sub": ["users": [["id": "alice"]]]]],
                pubSub: PubSubConfiguration(keysets: [
                    .protected(publishKey: "pub", subscribeKey: "sub", secretKey: "sec")
                ])))
        try await withConsoleBrowser(emulator, log: "chromium-protected.log") { base, browser, artifacts in
            let page = try await DevToolsPage.connect(port: browser.port)
            try await page.call("Page.enable")
            let console = try #require(await emulator.consoleURL).absoluteString
            // Without the secret the page asks for it.
            try await page.call("Page.navigate", ["url": .string(console)])
            try await page.waitUntil("document.getElementById('secret-form')?.hidden === false", "the secret prompt")
            // With it (in the fragment, which never reaches the server) the console loads, and the
            // fragment leaves the address bar.
            try await page.call("Page.navigate", ["url": .string("about:blank")])
            try await page.call(
                "Page.navigate", ["url": .string(console + "#secret=" + emulator.adminSecret + "&keyset=sub")])
            try await page.waitUntil("document.documentElement.dataset.ready === '1'", "the console to load")
            #expect(try await page.evaluate("location.hash.includes('secret')") == false)
            // DataSync itself still wants a token: the list shows the service's 401.
            try await page.waitUntil(
                "document.getElementById('list-error').textContent.includes('DS-0203')", "the service's refusal")
            #expect(try await page.evaluate("document.getElementById('token-field').hidden") == false)
            // With a token granted through Access Manager, the list loads.
            let host = try #require(base.host)
            let port = try #require(base.port)
            let clock = emulator.clock
            let token = try await AccessManagerTestServer(
                client: try CurlHTTPClient(), host: host, port: port, publishKey: "pub", subscribeKey: "sub",
                secretKey: "sec", now: { clock.now.date }
            ).grantToken(ttlMinutes: 10, patterns: ["uuids": [".*": 32]])
            let quoted = try JSONValue.string(token).jsonString()
            _ = try await page.evaluate(
                "const t = document.getElementById('auth-token'); t.value = \(quoted); "
                    + "t.dispatchEvent(new Event('change'))")
            try await page.waitUntil(
                #"document.querySelector('#object-table tbody tr[data-id="alice"]')"#, "alice, read with the token")
            #expect(emulator.recentRequests().contains { $0.target.contains("auth=REDACTED") })
            #expect(!emulator.recentRequests().contains { $0.target.contains(token) })
            try await Self.screenshot(page, to: artifacts.appendingPathComponent("console-protected.png"))
            #expect(try await page.evaluate("JSON.stringify(window.__consoleErrors)") == "[]")
        }
    }

    /// Saves a PNG of the page at `url`.
    static func screenshot(_ page: DevToolsPage, to url: URL) async throws {
        let shot = try await page.call("Page.captureScreenshot", ["format": "png"])
        let png = try #require(shot["data"]?.stringValue.flatMap { Data(base64Encoded: $0) })
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        try png.write(to: url)
    }
}
