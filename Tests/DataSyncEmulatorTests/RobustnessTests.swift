import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// SplitMix64: reproducible random requests.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

func pick<T>(_ items: [T], _ random: inout SeededRandom) -> T {
    items[Int(random.next() % UInt64(items.count))]
}

@Suite("Bad input never crashes and always gets an answer in the envelope")
struct RobustnessTests {
    @Test("random requests get 2xx or 4xx with a DataSync error envelope", arguments: [1, 2, 3] as [UInt64])
    func randomRequests(seed: UInt64) async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        try await client.user("u1")
        try await client.channel("c1")
        var random = SeededRandom(state: seed)
        let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "get"]
        let collections = [
            "users", "channels", "entities", "memberships", "relationships", "entity-classes",
            "relationship-classes", "nope", "",
        ]
        let ids = ["", "/u1", "/c1", "/%zz", "/a%2Fb", "/%F0%9F%98%80", "/u1/extra", "/Product"]
        let queries = [
            "", "?limit=0", "?limit=5", "?cursor=abc.def", "?sort=%2Cprice", "?sort=price:desc",
            "?entity_class=Product", "?entity_class=Product&filter_fast=price%20%3C", "?filter=((",
            "?filter_fast=id%20%3D%3D%20%22u1%22", "?relationship_class=Membership", "?%", "?a=%G0",
        ]
        let bodies: [[UInt8]] = [
            [], Array("{".utf8), Array("[]".utf8), Array("{\"data\":{}}".utf8),
            Array("{\"data\":{\"entityClassVersion\":1,\"payload\":{\"price\":\"x\"}}}".utf8),
            Array("{\"data\":{\"entityClassVersion\":1e400}}".utf8), Array("[{\"op\":\"add\"}]".utf8),
            Array("[{\"op\":\"test\",\"path\":\"/payload\",\"value\":1}]".utf8),
            Array("{\"data\":{\"name\":\"Z\",\"versions\":[{\"version\":-1}]}}".utf8), [0xFF, 0xFE],
        ]
        let types = [
            nil, "application/json", "application/json-patch+json",
            "application/vnd.pubnub.objects.user+json;version=1",
            "application/vnd.pubnub.objects.entity+json;version=2",
        ]
        for _ in 0..<400 {
            let target =
                "/v1/datasync/subkeys/sub-a/" + pick(collections, &random)
                + pick(ids, &random) + pick(queries, &random)
            let reply = try await client.sendRaw(
                pick(methods, &random), target, body: pick(bodies, &random),
                contentType: pick(types, &random))
            #expect((200..<500).contains(reply.status), "\(target) answered \(reply.status)")
            if reply.status >= 400 {
                #expect(
                    reply.errorCode?.hasPrefix("DS-") == true,
                    "\(target): \(String(decoding: reply.body, as: UTF8.self))")
            }
        }
    }
}
