import DataSync
import DataSyncModels
import Foundation
import JSONCore
import Transport

/// The smallest struct a hand-written client would decode a user list into with `JSONDecoder`:
/// strings for timestamps, the payload skipped.
private struct MinimalUserPage: Decodable {
    struct User: Decodable {
        var id: String
        var entityClass: String
        var entityClassVersion: Int
        var entityClassLevel: String?
        var status: String?
        var createdAt: String
        var updatedAt: String
        var expiresAt: String?
        var eTag: String
    }
    struct Meta: Decodable {
        var hasNext: Bool
        var nextCursor: String?
        var limit: Int?

        enum CodingKeys: String, CodingKey {
            case hasNext = "has_next"
            case nextCursor = "next_cursor"
            case limit
        }
    }
    var data: [User]
    var meta: Meta?
}

/// The create body as a plain `Encodable`, for the `JSONEncoder` baseline.
private struct CreateBody: Encodable {
    struct Payload: Encodable {
        var firstName: String
        var lastName: String
        var email: String
        var department: String
        var isActive: Bool
    }
    struct Data: Encodable {
        var id: String
        var entityClassVersion: Int
        var status: String
        var payload: Payload
    }
    var data: Data
}

/// Scenarios of the DataSync client: decoding list pages and building create requests.
enum ClientBenchmarks {
    /// A `GET …/users` answer with `count` users shaped like the recorded ones.
    static func userPage(count: Int) -> [UInt8] {
        let users: [JSONValue] = (0..<count).map { index in
            [
                "id": .string("user-\(index)"), "createdAt": "2026-09-07T07:34:55.265874Z",
                "updatedAt": "2026-09-07T07:35:03.328618Z", "eTag": .string("y2j\(index)"),
                "expiresAt": "2026-10-08T00:00:00Z", "entityClass": "User", "entityClassVersion": 1,
                "entityClassLevel": "Global", "status": "active",
                "payload": [
                    "firstName": "Alice", "lastName": "Verma", "email": .string("user\(index)@acme.test"),
                    "department": "Engineering", "level": "L3", "isActive": true,
                ],
            ]
        }
        let page: JSONValue = [
            "data": .array(users), "meta": ["has_next": true, "next_cursor": "eyJpIjoiMzQ5MSJ9", "limit": 100],
        ]
        return (try? page.jsonBytes()) ?? []
    }

    static func run() async throws -> [BenchRow] {
        var rows: [BenchRow] = []
        let page = userPage(count: 100)
        let decoder = JSONDecoder()

        var checksum = 0
        let typed = try Bench.throughput(operations: 100) {
            let (users, next) = try DataSyncEnvelope.list(PubNubDataSyncUser.self, from: page)
            checksum &+= users.count + (next?.limit ?? 0)
        }
        let pageData = Data(page)
        let plain = try Bench.throughput(operations: 100) {
            let decoded = try decoder.decode(MinimalUserPage.self, from: pageData)
            checksum &+= decoded.data.count + (decoded.meta?.limit ?? 0)
        }
        rows.append(
            BenchRow(
                scenario: "decode 100-user page (\(page.count / 1024) KiB) into typed models", unit: "objects/s",
                ours: typed, baselineName: "JSONDecoder, minimal struct", baseline: plain))

        let payload: JSONValue = [
            "firstName": "Amelia", "lastName": "Acharya", "email": "amelia.acharya@acme.test",
            "department": "Engineering", "isActive": true,
        ]
        let configuration = PubNubConfiguration(
            publishKey: nil, subscribeKey: "mySubKey", userId: "bench", authToken: "token",
            transport: BenchEchoClient())
        let api = PubNub(configuration: configuration).dataSync
        let engine = PubNub(configuration: configuration).dataSync.engine
        let custom = PubNub.RequestConfiguration()
        var bytes = 0
        let batch = Bench.scale(1000, smoke: 20)
        let build = try Bench.throughput(operations: batch) {
            for index in 0..<batch {
                var data: [String: JSONValue] = [
                    "id": .string("user-\(index)"), "entityClassVersion": 1, "status": "active",
                ]
                data["payload"] = payload
                let call = try DataSyncCall.create(.users, data: data)
                let request = try engine.httpRequest(for: call, custom: custom)
                bytes &+= (request.body?.count ?? 0) + request.url.utf8.count
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let bodyPayload = CreateBody.Payload(
            firstName: "Amelia", lastName: "Acharya", email: "amelia.acharya@acme.test", department: "Engineering",
            isActive: true)
        let encode = try Bench.throughput(operations: batch) {
            for index in 0..<batch {
                let body = CreateBody(
                    data: .init(id: "user-\(index)", entityClassVersion: 1, status: "active", payload: bodyPayload))
                bytes &+= try encoder.encode(body).count
            }
        }
        rows.append(
            BenchRow(
                scenario: "build + encode a createUser HTTP request", unit: "requests/s", ours: build,
                baselineName: "JSONEncoder of the body only", baseline: encode))

        let calls = Bench.scale(200, smoke: 10)
        let roundTrip = try await Bench.throughputAsync(operations: calls) {
            for index in 0..<calls {
                let user = try await api.createUser(
                    classVersion: 1, id: "user-\(index)", status: "active", payload: payload)
                bytes &+= user.id.count
            }
        }
        rows.append(
            BenchRow(
                scenario: "createUser end to end over an in-memory transport", unit: "calls/s", ours: roundTrip))
        if checksum == 42 && bytes == 42 { print("") }  // keeps the work observable
        return rows
    }
}

/// Answers every request with a canned user, so the round trip measures the SDK alone.
private struct BenchEchoClient: HTTPClient {
    static let body: [UInt8] = Array(
        #"{"data":{"id":"user-1","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2j19m","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Amelia"}}}"#
            .utf8)

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(status: 201, body: Self.body)
    }
}
