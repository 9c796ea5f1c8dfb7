import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// The console's push registrations panel in headless Chromium: each registered device with its
/// gateway, token, APNs2 topic and environment, and channels. Runs like ``ConsoleBrowserTests``
/// (required when `CHROMIUM` is set).
@Suite("Console push panel in headless Chromium", .serialized, .needsChromium, .timeLimit(.minutes(3)))
struct ConsolePushTests {
    @Test("registered devices and their channels show in the push panel")
    func pushPanelListsRegistrations() async throws {
        let emulator = try Emulator()
        for target in [
            "/v1/push/sub-key/demo/devices/fcm-1?type=fcm&add=news,alerts",
            "/v2/push/sub-key/demo/devices-apns2/0aff?topic=com.example.app&environment=production&add=orders",
        ] {
            let response = await emulator.respond(to: ServerRequest(method: "GET", target: target))
            #expect(response.status == 200)
        }
        try await withConsoleBrowser(emulator, log: "chromium-push.log") { _, browser, _ in
            let page = try await DevToolsPage.openConsole(of: emulator, in: browser, fragment: "#keyset=demo")
            // The panel loads on demand; the console may still be reading its keysets at first.
            try await page.waitUntil(
                "(document.querySelector('#push-load').click(), "
                    + "document.querySelectorAll('#push li.push-device').length === 2)",
                "both registrations listed")
            let lines = try await page.evaluate(
                "[...document.querySelectorAll('#push li.push-device')].map(li => li.textContent).join('\\n')")
            #expect(
                lines.stringValue
                    == "apns2 0aff com.example.app (production): orders\nfcm fcm-1: alerts, news")
        }
    }
}
