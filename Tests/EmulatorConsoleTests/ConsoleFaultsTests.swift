import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing
import Transport

/// The console's Faults panel in headless Chromium: it lists the emulator's queued faults, follows
/// them as requests use them up, adds one from its form (showing the emulator's refusal, which
/// names the field), removes one and clears them all.
///
/// Like the other browser tests: it must run and pass when `CHROMIUM` is set.
@Suite("Console faults panel in headless Chromium", .serialized, .needsChromium, .timeLimit(.minutes(3)))
struct ConsoleFaultsTests {
    @Test("the faults panel lists, adds, removes and clears faults")
    func faultsPanel() async throws {
        let emulator = try Emulator()
        try await withConsoleBrowser(emulator, log: "chromium-faults.log") { base, browser, artifacts in
            try await drive(emulator: emulator, base: base, browser: browser, artifacts: artifacts)
        }
    }

    private func drive(emulator: Emulator, base: URL, browser: Chromium, artifacts: URL) async throws {
        let page = try await DevToolsPage.openConsole(of: emulator, in: browser, fragment: "#keyset=demo", width: 1400)
        try await page.waitUntil(
            "document.getElementById('faults').textContent.includes('No faults queued.')", "the empty faults list")

        // A fault queued elsewhere appears, and the list follows as a request uses it.
        emulator.addFault(FaultRule(.status(503, body: nil), family: .time, count: 2))
        try await page.waitUntil(
            #"document.querySelector('#faults li[data-id="f1"]')?.textContent.includes('f1 status 503 on time (2 left')"#,
            "the fault added in process")
        let host = try #require(base.host)
        let port = try #require(base.port)
        let time = try await CurlHTTPClient().send(
            HTTPRequest(method: .get, scheme: "http", host: host, port: port, path: "/time/0"))
        #expect(time.status == 503)
        try await page.waitUntil(
            #"document.querySelector('#faults li[data-id="f1"]')?.textContent.includes('(1 left, fired 1)')"#,
            "the count going down")

        // The form: the fields follow the kind, and a refusal names the field.
        _ = try await page.evaluate(
            "const k = document.getElementById('fault-kind'); k.value = 'delay'; k.dispatchEvent(new Event('change'))")
        #expect(try await page.evaluate("document.getElementById('fault-status').hidden") == true)
        #expect(try await page.evaluate("document.getElementById('fault-seconds').hidden") == false)
        _ = try await page.evaluate("document.getElementById('fault-form').requestSubmit()")
        try await page.waitUntil(
            "!document.getElementById('fault-error').hidden && "
                + "document.getElementById('fault-error').textContent.includes('seconds:')",
            "the emulator's refusal naming seconds")
        #expect(emulator.faultEntries.count == 1)
        _ = try await page.evaluate(
            "document.getElementById('fault-seconds').value = '5'; "
                + "document.getElementById('fault-family').value = 'publish'; "
                + "document.getElementById('fault-channel').value = 'alerts'; "
                + "document.getElementById('fault-count').value = '3'; "
                + "document.getElementById('fault-form').requestSubmit()")
        try await page.waitUntil(
            #"document.querySelector('#faults li[data-id="f2"]')?.textContent.includes('f2 delay 5s on publish #alerts (3 left')"#,
            "the fault added from the form")
        #expect(try await page.evaluate("document.getElementById('fault-error').hidden") == true)
        let added = try #require(emulator.faultEntries.last)
        #expect(added.rule == FaultRule(.delay(.seconds(5)), family: .publish, channel: "alerts", count: 3))
        try await ConsoleBrowserTests.screenshot(page, to: artifacts.appendingPathComponent("console-faults.png"))

        // A 429 with Retry-After from the form.
        _ = try await page.evaluate(
            "{ const kind = document.getElementById('fault-kind'); kind.value = 'status'; kind.dispatchEvent(new Event('change')); } "
                + "document.getElementById('fault-status').value = '429'; "
                + "document.getElementById('fault-retry-after').value = '7'; "
                + "document.getElementById('fault-family').value = 'subscribe'; "
                + "document.getElementById('fault-channel').value = ''; "
                + "document.getElementById('fault-count').value = '1'; "
                + "document.getElementById('fault-form').requestSubmit()")
        try await page.waitUntil(
            #"document.querySelector('#faults li[data-id="f3"]')?.textContent.includes('f3 status 429 retry-after 7s on subscribe')"#,
            "the 429 added from the form")
        #expect(
            emulator.faultEntries.last?.rule
                == FaultRule(.status(429, body: nil, retryAfter: 7), family: .subscribe, count: 1))
        #expect(emulator.removeFault(id: "f3"))

        // Remove one, then clear the rest.
        _ = try await page.evaluate(#"document.querySelector('#faults li[data-id="f1"] button').click()"#)
        try await page.waitUntil(
            #"!document.querySelector('#faults li[data-id="f1"]') && !!document.querySelector('#faults li[data-id="f2"]')"#,
            "f1 removed")
        #expect(emulator.faultEntries.map(\.id) == ["f2"])
        _ = try await page.evaluate("document.getElementById('faults-clear').click()")
        try await page.waitUntil(
            "document.getElementById('faults').textContent.includes('No faults queued.')", "every fault cleared")
        #expect(emulator.faultEntries.isEmpty)
        #expect(try await page.evaluate("JSON.stringify(window.__consoleErrors)") == "[]")
    }
}
