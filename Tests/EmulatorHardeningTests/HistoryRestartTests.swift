import EmulatorHTTP
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("message history and actions survive a restart")
struct HistoryRestartTests {
    private func send(_ emulator: Emulator, _ method: String, _ target: String, body: [UInt8] = []) async
        -> JSONValue?
    {
        let response = await emulator.respond(to: ServerRequest(method: method, target: target, body: body))
        return try? JSONValue(parsing: response.body)
    }

    @Test("stored messages, deletions, actions and removals come back from the .pubsub file, also after compaction")
    func historyComesBack() async throws {
        try await withStateFile { path in
            var timetokens: [String] = []
            var removedAction = ""
            do {
                let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                for value in 0..<4 {
                    let reply = await send(
                        first, "GET", "/publish/demo/demo/0/ch/0/\(value)?uuid=u&meta=%7B%22n%22%3A\(value)%7D")
                    timetokens.append(try #require(reply?[2]?.stringValue))
                }
                _ = await send(first, "GET", "/publish/demo/demo/0/ch/0/9?store=0")
                _ = await send(
                    first, "DELETE", "/v3/history/sub-key/demo/channel/ch?start=\(timetokens[0])&end=\(timetokens[1])")
                let kept = await send(
                    first, "POST", "/v1/message-actions/demo/channel/ch/message/\(timetokens[2])?uuid=u",
                    body: Array(#"{"type":"reaction","value":"kept"}"#.utf8))
                #expect(kept?["status"] == 200)
                let gone = await send(
                    first, "POST", "/v1/message-actions/demo/channel/ch/message/\(timetokens[2])?uuid=u",
                    body: Array(#"{"type":"reaction","value":"gone"}"#.utf8))
                removedAction = try #require(gone?["data"]?["actionTimetoken"]?.stringValue)
                _ = await send(
                    first, "DELETE",
                    "/v1/message-actions/demo/channel/ch/message/\(timetokens[2])/action/\(removedAction)?uuid=u")
            }
            for _ in 0..<2 {
                // The second start reads the file the first one compacted.
                let next = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                let fetched = await send(
                    next, "GET", "/v3/history-with-actions/sub-key/demo/channel/ch?include_meta=true")
                let items = try #require(fetched?["channels"]?["ch"]?.arrayValue)
                #expect(items.map { $0["message"] } == [0, 2, 3])
                #expect(items.map { $0["timetoken"]?.stringValue } == [timetokens[0], timetokens[2], timetokens[3]])
                #expect(items[1]["meta"] == ["n": 2] && items[1]["uuid"] == "u")
                #expect(items[1]["actions"]?["reaction"]?["kept"]?.arrayValue?.count == 1)
                #expect(items[1]["actions"]?["reaction"]?["gone"] == nil)
                // Drawing a timetoken is the first write, which compacts the file the next start reads.
                _ = await send(next, "GET", "/time/0")
            }
        }
    }
}
