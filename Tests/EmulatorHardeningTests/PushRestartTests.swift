import EmulatorHTTP
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("push registrations survive a restart")
struct PushRestartTests {
    private func send(_ emulator: Emulator, _ target: String) async -> JSONValue? {
        let response = await emulator.respond(to: ServerRequest(method: "GET", target: target))
        return try? JSONValue(parsing: response.body)
    }

    @Test("registrations, removals and removed devices come back from the .pubsub file, also after compaction")
    func registrationsComeBack() async throws {
        try await withStateFile { path in
            let fcm = "/v1/push/sub-key/demo/devices/tok1"
            let apns2 = "/v2/push/sub-key/demo/devices-apns2/abcd"
            do {
                let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                #expect(await send(first, fcm + "?type=fcm&add=a,b,c") == [1, "Modified Channels"])
                _ = await send(first, fcm + "?type=fcm&remove=b")
                _ = await send(first, apns2 + "?topic=app&environment=production&add=x")
                _ = await send(first, "/v1/push/sub-key/demo/devices/gone?type=gcm&add=a")
                _ = await send(first, "/v1/push/sub-key/demo/devices/gone/remove?type=gcm")
            }
            for _ in 0..<2 {
                // The second start reads the file the first one compacted.
                let next = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                #expect(await send(next, fcm + "?type=fcm") == ["a", "c"])
                #expect(await send(next, apns2 + "?topic=app&environment=production") == ["x"])
                #expect(await send(next, "/v1/push/sub-key/demo/devices/gone?type=gcm") == [])
                // Drawing a timetoken is the first write, which compacts the file the next start reads.
                _ = await send(next, "/time/0")
            }
        }
    }
}
