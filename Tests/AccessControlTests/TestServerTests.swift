import Auth
import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Testing
import Transport

/// Hands requests to an emulator in process, as its HTTP server would.
struct InProcessClient: HTTPClient {
    let emulator: Emulator

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let headers = request.headers.map { (name: $0.name, value: $0.value) }
        let response = await emulator.respond(
            to: ServerRequest(
                method: request.method.rawValue, target: request.target, headers: headers, body: request.body ?? []))
        return HTTPResponse(
            status: response.status,
            headers: HTTPHeaders(response.headers.map { .init(name: $0.name, value: $0.value) }),
            body: response.body)
    }
}

@Suite struct TestServerTests {
    func server(_ client: AccessClient, secret: String = AccessClient.secretKey) -> AccessManagerTestServer {
        let clock = client.emulator.clock
        return AccessManagerTestServer(
            client: InProcessClient(emulator: client.emulator), host: "emulator", port: nil,
            publishKey: AccessClient.publishKey, subscribeKey: AccessClient.subscribeKey, secretKey: secret,
            now: { clock.now.date })
    }

    @Test func itMintsATokenTheEmulatorAcceptsAndRevokesIt() async throws {
        let client = try AccessClient()
        let server = server(client)
        let token = try await server.grantToken(
            ttlMinutes: 10, resources: ["channels": ["room": 2], "uuids": ["alice": 32]], authorizedUUID: "alice")
        let parsed = try AccessToken(parsing: token)
        #expect(parsed.authorizedUserID == "alice")
        #expect(parsed.allows(.write, on: "room", in: .channels))
        #expect(await client.publish("room", auth: token).status == 200)
        try await server.revokeToken(token)
        #expect(await client.publish("room", auth: token).json?["message"] == "Token is revoked.")
    }

    @Test func aWrongSecretKeyThrowsTheRefusal() async throws {
        let client = try AccessClient()
        await #expect(throws: AccessManagerTestServer.Failure.self) {
            _ = try await server(client, secret: "nope").grantToken(ttlMinutes: 1, resources: ["channels": ["a": 1]])
        }
    }
}
