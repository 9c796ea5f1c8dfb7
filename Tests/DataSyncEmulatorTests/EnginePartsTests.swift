import EmulatorHTTP
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// The engine's parts keep to their jobs: a list reads the store and changes nothing a write
/// owns (the revision, the change feed, what the next save must write).
@Suite("DataSync engine parts")
struct EnginePartsTests {
    static let seed: JSONValue = [
        "keysets": ["k": ["users": [["id": "u1"], ["id": "u2"], ["id": "u3"]]]]
    ]

    @Test("lists, sorted and paged, leave the revision, the feed and the unsaved state alone")
    func listsWriteNothing() throws {
        let engine = Engine(filterFastConditionLimit: 10, clock: .manual(startingAt: startInstant))
        engine.store.changes.isEnabled = true
        engine.transactions.begin()
        try engine.seeder.seed(Self.seed)
        engine.transactions.commit()
        engine.store.changes.markSaved(engine.store.keysets.values)
        let revision = engine.transactions.revision
        let published = engine.publisher.feed.recent.count
        #expect(revision == 3)
        #expect(published == 3)
        var cursor: String?
        var seen: [String] = []
        // Twice per sort, so the second list builds the sorted snapshot.
        for target in [
            "/v1/datasync/subkeys/k/users?limit=2", "/v1/datasync/subkeys/k/users?sort=id:desc",
            "/v1/datasync/subkeys/k/users?sort=id:desc", "/v1/datasync/subkeys/k/users?sort=updatedAt&limit=1",
        ] {
            let response = engine.handle(ServerRequest(method: "GET", target: target))
            #expect(response.status == 200)
            let body = try JSONValue(parsing: response.body)
            if target.hasSuffix("limit=2") {
                seen = body["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                cursor = body["meta"]?["next_cursor"]?.stringValue
            }
        }
        #expect(seen == ["u1", "u2"])
        let next = try #require(cursor)
        let page = engine.handle(
            ServerRequest(method: "GET", target: "/v1/datasync/subkeys/k/users?limit=2&cursor=\(next)"))
        #expect(try JSONValue(parsing: page.body)["data"]?[0]?["id"] == "u3")
        #expect(engine.transactions.revision == revision)
        #expect(engine.publisher.feed.recent.count == published)
        #expect(!engine.transactions.hasUnsavedChanges)
    }
}
