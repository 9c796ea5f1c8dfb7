import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// The console's history panel in headless Chromium: a channel's stored messages, newest first,
/// with their actions, and the list of channels that hold history. Runs like
/// ``ConsoleBrowserTests`` (required when `CHROMIUM` is set).
@Suite("Console history panel in headless Chromium", .serialized, .needsChromium, .timeLimit(.minutes(3)))
struct ConsoleHistoryTests {
    private func send(_ emulator: Emulator, _ method: String, _ target: String, body: String = "") async -> JSONValue? {
        let response = await emulator.respond(
            to: ServerRequest(method: method, target: target, body: Array(body.utf8)))
        return try? JSONValue(parsing: response.body)
    }

    @Test("a channel's messages and their actions show in the history panel")
    func historyPanelShowsMessagesAndActions() async throws {
        let emulator = try Emulator()
        _ = await send(emulator, "GET", "/publish/demo/demo/0/lobby/0/%22first%22?uuid=ann")
        let second = await send(emulator, "GET", "/publish/demo/demo/0/lobby/0/%7B%22text%22%3A%22hi%22%7D?uuid=bob")
        let timetoken = try #require(second?[2]?.stringValue)
        let added = await send(
            emulator, "POST", "/v1/message-actions/demo/channel/lobby/message/\(timetoken)?uuid=ann",
            body: #"{"type":"reaction","value":"wave"}"#)
        #expect(added?["status"] == 200)
        try await withConsoleBrowser(emulator, log: "chromium-history.log") { _, browser, _ in
            let page = try await DevToolsPage.openConsole(of: emulator, in: browser, fragment: "#keyset=demo")
            try await page.waitUntil(
                #"[...document.querySelectorAll('#history-channels button')].some(b => b.textContent === 'lobby')"#,
                "the channel with history listed")
            _ = try await page.evaluate(
                #"[...document.querySelectorAll('#history-channels button')].find(b => b.textContent === 'lobby').click()"#
            )
            try await page.waitUntil(
                "document.querySelectorAll('#history-messages li.history-message').length === 2", "both stored messages"
            )
            let first = try await page.evaluate(
                "document.querySelector('#history-messages li.history-message').textContent")
            #expect(first.stringValue?.contains(#"{"text":"hi"}"#) == true)
            #expect(first.stringValue?.contains("bob") == true)
            #expect(first.stringValue?.contains("reaction: wave by ann") == true)
            // In the History panel, not in the selected object's change list (the two lists once
            // shared an id, and the messages landed in the object pane).
            #expect(try await page.evaluate("document.querySelectorAll('#detail li.history-message').length") == 0)
            let last = try await page.evaluate(
                "document.querySelectorAll('#history-messages li.history-message')[1].textContent")
            #expect(last.stringValue?.contains(#""first""#) == true)
        }
    }
}
