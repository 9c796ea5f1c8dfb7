import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

/// Request-level tests of memberships, entities and relationships, from the protocol spec (§4.3 to
/// §4.5); users and channels are covered by the recorded vectors.
@Suite("Entities, memberships and relationships on the wire")
struct DataSyncOperationTests {
    private let base = "/v1/datasync/subkeys/mySubKey"
    private let entityType = "application/vnd.pubnub.objects.entity+json;version=1"
    private let membershipType = "application/vnd.pubnub.objects.membership+json;version=1"
    private let relationshipType = "application/vnd.pubnub.objects.relationship+json;version=1"
    private let patchType = "application/json-patch+json"

    // MARK: entities

    @Test func createEntitySendsClassVersionLevelAndPayload() async throws {
        let (pubnub, recorder) = Fixtures.recorded(status: 201, body: Fixtures.envelope(Fixtures.entity("sku/1")))
        struct Product: JSONCodable {
            var name: String
            var price: Double
        }
        let entity = try await pubnub.dataSync.createEntity(
            className: "Product", classVersion: 2, classLevel: .subKey, id: "sku/1", status: "draft",
            payload: Product(name: "Boot", price: 79.5))
        #expect(entity.id == "sku/1")
        #expect(entity.className == "Product")
        try Fixtures.expect(
            recorder.lastRequest, method: "POST", path: "\(base)/entities", headers: ["Content-Type": entityType],
            body: [
                "data": [
                    "id": "sku/1", "entityClass": "Product", "entityClassVersion": 2, "entityClassLevel": "SubKey",
                    "status": "draft", "payload": ["name": "Boot", "price": 79.5],
                ]
            ])
    }

    @Test func createEntityWithoutOptionalFields() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.entity("gen-1")))
        _ = try await pubnub.dataSync.createEntity(className: "Product", classVersion: 1)
        try Fixtures.expect(
            recorder.lastRequest, method: "POST", path: "\(base)/entities", headers: ["Content-Type": entityType],
            body: ["data": ["entityClass": "Product", "entityClassVersion": 1]])
    }

    @Test func getEntityEncodesTheIdAsOnePathSegment() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.entity("a/b c")))
        _ = try await pubnub.dataSync.getEntity(id: "a/b c")
        try Fixtures.expect(recorder.lastRequest, method: "GET", path: "\(base)/entities/a%2Fb%20c")
    }

    @Test func getEntitiesSendsEveryListParameter() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([Fixtures.entity("e1")], hasNext: false))
        let (entities, next) = try await pubnub.dataSync.getEntities(
            className: "Product", classVersion: 2, classLevel: .subKey, cursor: "c/1", limit: 25,
            filterFast: "price < 100", filter: #"name LIKE "*boot*""#,
            sort: [.init(property: "name"), .init(property: "price", ascending: false)])
        #expect(entities.map(\.id) == ["e1"])
        #expect(next == PubNubDataSyncPage(hasNext: false, cursor: nil, limit: 1))
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/entities",
            query: [
                "entity_class": "Product", "entity_class_version": "2", "entity_class_level": "SubKey",
                "cursor": "c/1", "limit": "25", "filter_fast": "price < 100", "filter": #"name LIKE "*boot*""#,
                "sort": "name,price:desc",
            ])
    }

    @Test func getEntitiesWithOnlyTheClass() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([]))
        let (entities, next) = try await pubnub.dataSync.getEntities(className: "Product")
        #expect(entities.isEmpty)
        #expect(next == nil)
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/entities", query: ["entity_class": "Product"])
    }

    @Test func setEntitySendsTheCompleteObjectWithoutIdOrClass() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.entity("e1")))
        _ = try await pubnub.dataSync.setEntity(
            id: "e1", classVersion: 3, status: "live", payload: ["price": 10], ifMatchesEtag: "abc")
        try Fixtures.expect(
            recorder.lastRequest, method: "PUT", path: "\(base)/entities/e1",
            headers: ["Content-Type": entityType, "If-Match": "abc"],
            body: ["data": ["entityClassVersion": 3, "status": "live", "payload": ["price": 10]]])
    }

    @Test func setEntityWithOnlyTheVersionClearsTheRest() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.entity("e1")))
        _ = try await pubnub.dataSync.setEntity(id: "e1", classVersion: 1)
        try Fixtures.expect(
            recorder.lastRequest, method: "PUT", path: "\(base)/entities/e1", headers: ["Content-Type": entityType],
            body: ["data": ["entityClassVersion": 1]])
    }

    @Test func updateEntitySendsTheOperationsInOrder() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.entity("e1")))
        _ = try await pubnub.dataSync.updateEntity(
            id: "e1",
            operations: [
                .test(path: "/status", value: "active"), .replace(path: "/payload/price", value: 79.99),
                .remove(path: "/payload/tempFlag"), .add(path: "/payload/user.name", value: ["a": nil]),
            ], ifMatchesEtag: "e1")
        try Fixtures.expect(
            recorder.lastRequest, method: "PATCH", path: "\(base)/entities/e1",
            headers: ["Content-Type": patchType, "If-Match": "e1"],
            body: [
                ["op": "test", "path": "/status", "value": "active"],
                ["op": "replace", "path": "/payload/price", "value": 79.99],
                ["op": "remove", "path": "/payload/tempFlag"],
                ["op": "add", "path": "/payload/user.name", "value": ["a": nil]],
            ])
    }

    @Test func removeEntity() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: "")
        try await pubnub.dataSync.removeEntity(id: "e1", ifMatchesEtag: "e9")
        try Fixtures.expect(
            recorder.lastRequest, method: "DELETE", path: "\(base)/entities/e1", headers: ["If-Match": "e9"])
    }

    // MARK: memberships

    @Test func createMembershipSendsEndpointsAndRelationshipVersion() async throws {
        let (pubnub, recorder) = Fixtures.recorded(status: 201, body: Fixtures.envelope(Fixtures.membership("m1")))
        let membership = try await pubnub.dataSync.createMembership(
            channelId: "ch-1", userId: "u-1", classVersion: 1, id: "m1", status: "active", payload: ["role": "owner"])
        #expect(membership.channelId == "ch-1")
        #expect(membership.userId == "u-1")
        #expect(membership.className == "Membership")
        try Fixtures.expect(
            recorder.lastRequest, method: "POST", path: "\(base)/memberships",
            headers: ["Content-Type": membershipType],
            body: [
                "data": [
                    "id": "m1", "channelId": "ch-1", "userId": "u-1", "relationshipClassVersion": 1,
                    "status": "active", "payload": ["role": "owner"],
                ]
            ])
    }

    @Test func getMembership() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.membership("m 1")))
        _ = try await pubnub.dataSync.getMembership(id: "m 1")
        try Fixtures.expect(recorder.lastRequest, method: "GET", path: "\(base)/memberships/m%201")
    }

    @Test func getMembershipsSendsEndpointFiltersAndRelationshipVersion() async throws {
        let (pubnub, recorder) = Fixtures.recorded(
            body: Fixtures.page([Fixtures.membership("m1")], hasNext: true, cursor: "next"))
        let (memberships, next) = try await pubnub.dataSync.getMemberships(
            channelId: "ch-1", userId: "u-1", classVersion: 1, cursor: "c", limit: 5, filterFast: "status == 'a'",
            sort: [.init(property: "createdAt", ascending: false)])
        #expect(memberships.count == 1)
        #expect(next?.hasNext == true)
        #expect(next?.cursor == "next")
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/memberships",
            query: [
                "channel_id": "ch-1", "user_id": "u-1", "relationship_class_version": "1", "cursor": "c",
                "limit": "5", "filter_fast": "status == 'a'", "sort": "createdAt:desc",
            ])
    }

    @Test func getMembershipsWithoutArguments() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([]))
        _ = try await pubnub.dataSync.getMemberships()
        try Fixtures.expect(recorder.lastRequest, method: "GET", path: "\(base)/memberships")
    }

    @Test func setMembershipNeverSendsEndpoints() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.membership("m1")))
        _ = try await pubnub.dataSync.setMembership(
            id: "m1", classVersion: 2, status: "left", payload: ["x": true], ifMatchesEtag: "t1")
        try Fixtures.expect(
            recorder.lastRequest, method: "PUT", path: "\(base)/memberships/m1",
            headers: ["Content-Type": membershipType, "If-Match": "t1"],
            body: ["data": ["relationshipClassVersion": 2, "status": "left", "payload": ["x": true]]])
    }

    @Test func updateMembership() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.membership("m1")))
        _ = try await pubnub.dataSync.updateMembership(
            id: "m1", operations: [.replace(path: "/relationshipClassVersion", value: 2)])
        try Fixtures.expect(
            recorder.lastRequest, method: "PATCH", path: "\(base)/memberships/m1",
            headers: ["Content-Type": patchType],
            body: [["op": "replace", "path": "/relationshipClassVersion", "value": 2]])
    }

    @Test func removeMembership() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: "")
        try await pubnub.dataSync.removeMembership(id: "m1")
        try Fixtures.expect(recorder.lastRequest, method: "DELETE", path: "\(base)/memberships/m1")
    }

    @Test func membershipFallsBackToTheOldEndpointNames() throws {
        let old = Fixtures.object([
            "id": "m1", "relationshipClassVersion": 1, "entityAId": "ch-9", "entityBId": "u-9",
        ])
        let membership = try old.decode(PubNubDataSyncMembership.self)
        #expect(membership.channelId == "ch-9")
        #expect(membership.userId == "u-9")
        #expect(membership.className == "Membership")
    }

    // MARK: relationships

    @Test func createRelationshipSendsClassAndBothEnds() async throws {
        let (pubnub, recorder) = Fixtures.recorded(status: 201, body: Fixtures.envelope(Fixtures.relationship("r1")))
        let relationship = try await pubnub.dataSync.createRelationship(
            className: "RequestedBy", classVersion: 1, entityAId: "quote-1", entityBId: "customer-7", id: "r1",
            status: "open", payload: ["weight": 2])
        #expect(relationship.entityAId == "quote-1")
        #expect(relationship.entityBId == "customer-7")
        try Fixtures.expect(
            recorder.lastRequest, method: "POST", path: "\(base)/relationships",
            headers: ["Content-Type": relationshipType],
            body: [
                "data": [
                    "id": "r1", "relationshipClass": "RequestedBy", "relationshipClassVersion": 1,
                    "entityAId": "quote-1", "entityBId": "customer-7", "status": "open", "payload": ["weight": 2],
                ]
            ])
    }

    @Test func getRelationship() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.relationship("r1")))
        let relationship = try await pubnub.dataSync.getRelationship(id: "r1")
        #expect(relationship.className == "RequestedBy")
        try Fixtures.expect(recorder.lastRequest, method: "GET", path: "\(base)/relationships/r1")
    }

    @Test func getRelationshipsAlwaysSendsTheClass() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([Fixtures.relationship("r1")]))
        _ = try await pubnub.dataSync.getRelationships(
            className: "RequestedBy", classVersion: 1, entityAId: "quote-1", entityBId: "customer-7", limit: 100,
            filter: "status == 'open'")
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/relationships",
            query: [
                "relationship_class": "RequestedBy", "relationship_class_version": "1", "entity_a_id": "quote-1",
                "entity_b_id": "customer-7", "limit": "100", "filter": "status == 'open'",
            ])
    }

    @Test func setRelationshipNeverSendsEndsOrClass() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.relationship("r1")))
        _ = try await pubnub.dataSync.setRelationship(id: "r1", classVersion: 1, ifMatchesEtag: "w/1")
        try Fixtures.expect(
            recorder.lastRequest, method: "PUT", path: "\(base)/relationships/r1",
            headers: ["Content-Type": relationshipType, "If-Match": "w/1"],
            body: ["data": ["relationshipClassVersion": 1]])
    }

    @Test func updateRelationship() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.relationship("r1")))
        _ = try await pubnub.dataSync.updateRelationship(
            id: "r1", operations: [.copy(from: "/payload/a", path: "/payload/b")], ifMatchesEtag: "q")
        try Fixtures.expect(
            recorder.lastRequest, method: "PATCH", path: "\(base)/relationships/r1",
            headers: ["Content-Type": patchType, "If-Match": "q"],
            body: [["op": "copy", "from": "/payload/a", "path": "/payload/b"]])
    }

    @Test func removeRelationship() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: "")
        try await pubnub.dataSync.removeRelationship(id: "r1", ifMatchesEtag: "q")
        try Fixtures.expect(
            recorder.lastRequest, method: "DELETE", path: "\(base)/relationships/r1", headers: ["If-Match": "q"])
    }
}
