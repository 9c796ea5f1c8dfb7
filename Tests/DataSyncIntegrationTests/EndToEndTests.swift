import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import Testing
import Transport

/// Every DataSync operation over real HTTP, on both backends, against the in-process emulator.
@Suite(.serialized) struct EndToEndTests {
    struct Item: JSONCodable, Equatable {
        var price: Double
        var sku: String
    }

    @Test(arguments: HTTPBackend.allCases)
    func usersLifecycle(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            let created = try await dataSync.createUser(
                classVersion: 1, id: "ada/lovelace", status: "active", payload: ["name": "Ada", "age": 36] as JSONValue)
            #expect(created.id == "ada/lovelace")
            #expect(created.className == "User")
            #expect(created.payload?["age"] == .int(36))
            // 30-day TTL rounded up to the next whole UTC day.
            let expiresAt = try #require(created.expiresAt)
            #expect(Int(expiresAt.timeIntervalSince1970) % 86_400 == 0)

            let fetched = try await dataSync.getUser(id: "ada/lovelace")
            #expect(fetched.eTag == created.eTag)

            let replaced = try await dataSync.setUser(id: "ada/lovelace", classVersion: 1, status: "away")
            #expect(replaced.status == "away")
            #expect(replaced.payload == nil, "set is a full replacement: the omitted payload is cleared")
            #expect(replaced.eTag != created.eTag)

            let patched = try await dataSync.updateUser(
                id: "ada/lovelace",
                operations: [.test(path: "/status", value: "away"), .add(path: "/payload", value: ["name": "A"])],
                ifMatchesEtag: replaced.eTag)
            #expect(patched.payload == ["name": "A"])
            #expect(patched.updatedAt >= replaced.updatedAt)

            try await dataSync.removeUser(id: "ada/lovelace", ifMatchesEtag: patched.eTag)
            await expectPubNubError(.resourceNotFound) { _ = try await dataSync.getUser(id: "ada/lovelace") }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func channelsLifecycle(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            let created = try await dataSync.createChannel(classVersion: 1, payload: ["topic": "news"])
            #expect(!created.id.isEmpty, "the server generates an id when none is given")
            #expect(try await dataSync.getChannel(id: created.id).payload?["topic"] == "news")
            let set = try await dataSync.setChannel(
                id: created.id, classVersion: 1, status: "archived", payload: ["topic": "old"],
                ifMatchesEtag: created.eTag)
            let updated = try await dataSync.updateChannel(
                id: created.id, operations: [.replace(path: "/payload/topic", value: "older")])
            #expect(updated.payload?["topic"] == "older")
            #expect(updated.eTag != set.eTag)
            let (channels, page) = try await dataSync.getChannels(filterFast: #"status == "archived""#)
            #expect(channels.map(\.id) == [created.id])
            #expect(page?.hasNext != true)
            try await dataSync.removeChannel(id: created.id)
            let (after, _) = try await dataSync.getChannels()
            #expect(after.isEmpty)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func entitiesLifecycle(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            for (index, price) in [19.99, 79.99, 250.0].enumerated() {
                _ = try await dataSync.createEntity(
                    className: "Product", classVersion: 1, id: "p\(index)", status: "active",
                    payload: Item(price: price, sku: "SKU-\(index)"))
            }
            let (cheap, _) = try await dataSync.getEntities(
                className: "Product", filter: "price < 100", sort: [PubNub.DataSyncSortField(property: "price")])
            #expect(cheap.map(\.id) == ["p0", "p1"])
            let (bySku, _) = try await dataSync.getEntities(className: "Product", filterFast: #"sku == "SKU-2""#)
            #expect(bySku.map(\.id) == ["p2"])
            let entity = try await dataSync.getEntity(id: "p1")
            #expect(try entity.payload?.decode(Item.self) == Item(price: 79.99, sku: "SKU-1"))
            let set = try await dataSync.setEntity(
                id: "p1", classVersion: 1, status: "sale", payload: Item(price: 59.99, sku: "SKU-1"))
            #expect(set.className == "Product")
            let updated = try await dataSync.updateEntity(
                id: "p1", operations: [.copy(from: "/payload/price", path: "/payload/msrp")], ifMatchesEtag: set.eTag)
            #expect(updated.payload?["msrp"] == .double(59.99))
            try await dataSync.removeEntity(id: "p1")
            await expectPubNubError(.resourceNotFound) { _ = try await dataSync.getEntity(id: "p1") }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func membershipsLifecycle(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            _ = try await dataSync.createUser(classVersion: 1, id: "u1")
            _ = try await dataSync.createUser(classVersion: 1, id: "u2")
            _ = try await dataSync.createChannel(classVersion: 1, id: "c1")
            let first = try await dataSync.createMembership(
                channelId: "c1", userId: "u1", classVersion: 1, id: "m1", payload: ["role": "admin"])
            #expect(first.channelId == "c1" && first.userId == "u1")
            _ = try await dataSync.createMembership(channelId: "c1", userId: "u2", classVersion: 1, id: "m2")

            let duplicate = await expectPubNubError(.conflict) {
                _ = try await dataSync.createMembership(channelId: "c1", userId: "u1", classVersion: 1)
            }
            #expect(duplicate?.statusCode == 409)

            #expect(try await dataSync.getMembership(id: "m1").payload?["role"] == "admin")
            let (inChannel, _) = try await dataSync.getMemberships(channelId: "c1")
            #expect(Set(inChannel.map(\.id)) == ["m1", "m2"])
            let (forUser, _) = try await dataSync.getMemberships(userId: "u2")
            #expect(forUser.map(\.id) == ["m2"])

            let set = try await dataSync.setMembership(id: "m1", classVersion: 1, status: "muted")
            #expect(set.status == "muted" && set.payload == nil)
            let updated = try await dataSync.updateMembership(
                id: "m1", operations: [.remove(path: "/status")], ifMatchesEtag: set.eTag)
            #expect(updated.status == nil)
            try await dataSync.removeMembership(id: "m1")

            // Removing a user removes its memberships.
            try await dataSync.removeUser(id: "u2")
            await expectPubNubError(.resourceNotFound) { _ = try await dataSync.getMembership(id: "m2") }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func relationshipsLifecycle(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            _ = try await dataSync.createUser(classVersion: 1, id: "buyer")
            _ = try await dataSync.createEntity(
                className: "Product", classVersion: 1, id: "shoe", payload: Item(price: 10, sku: "S"))
            let created = try await dataSync.createRelationship(
                className: "Bought", classVersion: 1, entityAId: "buyer", entityBId: "shoe", id: "r1",
                payload: ["quantity": 2])
            #expect(created.entityAId == "buyer" && created.entityBId == "shoe")
            await expectPubNubError(.resourceNotFound) {
                _ = try await dataSync.createRelationship(
                    className: "Bought", classVersion: 1, entityAId: "buyer", entityBId: "no-such-product")
            }
            #expect(try await dataSync.getRelationship(id: "r1").payload?["quantity"] == 2)
            let (byA, _) = try await dataSync.getRelationships(className: "Bought", entityAId: "buyer")
            #expect(byA.map(\.id) == ["r1"])
            let (byB, _) = try await dataSync.getRelationships(className: "Bought", entityBId: "other")
            #expect(byB.isEmpty)
            let set = try await dataSync.setRelationship(id: "r1", classVersion: 1, payload: ["quantity": 3])
            let updated = try await dataSync.updateRelationship(
                id: "r1", operations: [.replace(path: "/payload/quantity", value: 4)], ifMatchesEtag: set.eTag)
            #expect(updated.payload?["quantity"] == 4)
            try await dataSync.removeRelationship(id: "r1", ifMatchesEtag: updated.eTag)
            await expectPubNubError(.resourceNotFound) { _ = try await dataSync.getRelationship(id: "r1") }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func staleETagsAreRejectedAndChangeNothing(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            let original = try await dataSync.createUser(classVersion: 1, id: "u", status: "one")
            let current = try await dataSync.setUser(id: "u", classVersion: 1, status: "two")
            let stale = original.eTag
            await expectPubNubError(.preconditionFailed) {
                _ = try await dataSync.setUser(id: "u", classVersion: 1, status: "three", ifMatchesEtag: stale)
            }
            await expectPubNubError(.preconditionFailed) {
                _ = try await dataSync.updateUser(
                    id: "u", operations: [.replace(path: "/status", value: "four")], ifMatchesEtag: stale)
            }
            await expectPubNubError(.preconditionFailed) {
                try await dataSync.removeUser(id: "u", ifMatchesEtag: stale)
            }
            let after = try await dataSync.getUser(id: "u")
            #expect(after.status == "two")
            #expect(after.eTag == current.eTag)
            // A failing JSON Patch test is a conflict and changes nothing either.
            await expectPubNubError(.conflict) {
                _ = try await dataSync.updateUser(
                    id: "u",
                    operations: [.test(path: "/status", value: "one"), .replace(path: "/status", value: "x")])
            }
            #expect(try await dataSync.getUser(id: "u").eTag == current.eTag)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func serviceErrorsKeepTheirDetails(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            let undeclared = await expectPubNubError(.badRequest) {
                _ = try await dataSync.getEntities(className: "Product", filter: "color == \"red\"")
            }
            #expect(undeclared?.statusCode == 400)
            #expect(undeclared?.details.isEmpty == false)
            #expect(undeclared?.errorCode != nil)
            await expectPubNubError(.badRequest) {
                _ = try await dataSync.getUsers(filterFast: "id == \"a\"", filter: "id == \"a\"")
            }
            await expectPubNubError(.badRequest) { _ = try await dataSync.getUsers(limit: 101) }
            await expectPubNubError(.badRequest) {
                _ = try await dataSync.getUsers(sort: [PubNub.DataSyncSortField(property: "-price")])
            }
            _ = try await dataSync.createUser(classVersion: 1, id: "dup")
            await expectPubNubError(.conflict) { _ = try await dataSync.createUser(classVersion: 1, id: "dup") }
            // Local checks fail before anything is sent.
            await expectPubNubError(.missingRequiredParameter) { _ = try await dataSync.getUser(id: "") }
            await expectPubNubError(.missingRequiredParameter) {
                _ = try await dataSync.updateUser(id: "dup", operations: [])
            }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func paginationAndTheAutoPagerVisitEveryObjectOnce(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            for index in 0..<25 {
                _ = try await dataSync.createUser(classVersion: 1, id: String(format: "user-%02d", index))
            }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let (users, next) = try await dataSync.getUsers(
                    cursor: cursor, limit: 10, sort: [PubNub.DataSyncSortField(property: "id", ascending: false)])
                seen += users.map(\.id)
                cursor = next?.hasNext == true ? next?.cursor : nil
            } while cursor != nil
            #expect(seen == (0..<25).reversed().map { String(format: "user-%02d", $0) })

            var streamed: [String] = []
            for try await user in dataSync.users(pageSize: 7) { streamed.append(user.id) }
            #expect(streamed.count == 25)
            #expect(Set(streamed).count == 25)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func expiredObjectsDisappear(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            _ = try await dataSync.createUser(classVersion: 1, id: "short-lived")
            await fixture.emulator.advanceTime(days: 29)
            _ = try await dataSync.getUser(id: "short-lived")
            await fixture.emulator.advanceTime(days: 2)
            await expectPubNubError(.resourceNotFound) { _ = try await dataSync.getUser(id: "short-lived") }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func completionHandlersDeliverResultsOverHTTP(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            let dataSync = fixture.dataSync
            let user: PubNubDataSyncUser = try await withCheckedThrowingContinuation { continuation in
                dataSync.createUser(classVersion: 1, id: "callback", status: "active") { result in
                    continuation.resume(with: result)
                }
            }
            #expect(user.id == "callback")
            let missing: Result<PubNubDataSyncUser, any Error> = await withCheckedContinuation { continuation in
                dataSync.getUser(id: "nobody") { result in continuation.resume(returning: result) }
            }
            guard case .failure(let error) = missing else {
                Issue.record("getUser of a missing id succeeded")
                return
            }
            #expect(error.pubNubError?.reason == .resourceNotFound)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func tokenChangesReachTheWire(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            // The emulator accepts any credential; what matters is that requests keep flowing
            // after the token changes mid-run.
            _ = try await fixture.dataSync.createUser(classVersion: 1, id: "before")
            fixture.pubnub.set(token: "another-token")
            _ = try await fixture.dataSync.createUser(classVersion: 1, id: "after")
            let (users, _) = try await fixture.dataSync.getUsers()
            #expect(Set(users.map(\.id)) == ["before", "after"])
        }
    }
}
