import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("Classes: built-ins, subclasses, levels, class endpoints")
struct ClassTests {
    @Test("className defaults to User on /users and Channel on /channels")
    func defaults() async throws {
        let client = try TestClient()
        #expect(try await client.user("u1").data?["entityClass"] == "User")
        #expect(try await client.channel("c1").data?["entityClass"] == "Channel")
        #expect(try await client.channel("c2").data?["entityClassLevel"] == "Global")
    }

    @Test("a User subclass is accepted on /users and lives at SubKey")
    func subclass() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(employeeClass)
        let reply = try await client.create(
            "users", ["id": "e1", "entityClass": "Employee", "entityClassLevel": "SubKey", "entityClassVersion": 1])
        #expect(reply.status == 201)
        #expect(reply.data?["entityClass"] == "Employee")
        #expect(reply.data?["entityClassLevel"] == "SubKey")
        // It is still a user: reachable through /users and /entities, not /channels.
        #expect(try await client.get("users/e1").status == 200)
        #expect(try await client.get("entities/e1").data?["entityClass"] == "Employee")
        #expect(try await client.get("channels/e1").status == 404)
        // Asking for it at Global finds no such class.
        let global = try await client.create(
            "users", ["entityClass": "Employee", "entityClassLevel": "Global", "entityClassVersion": 1])
        global.expectError(404, "DS-0100")
    }

    @Test("a class that is not User or a subclass is refused on /users with DS-0006")
    func notSubclass() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        let reply = try await client.create("users", ["entityClass": "Product", "entityClassVersion": 1])
        reply.expectError(400, "DS-0006", at: "/data/entityClass")
        let channel = try await client.create("users", ["entityClass": "Channel", "entityClassVersion": 1])
        #expect(channel.errorCode == "DS-0006")
    }

    @Test("an unknown class is a 404 DS-0100; an unknown version a 400; Account level a 400")
    func unknownClass() async throws {
        let client = try TestClient()
        let reply = try await client.create("entities", ["entityClass": "Nope", "entityClassVersion": 1])
        reply.expectError(404, "DS-0100")
        let version = try await client.create("users", ["entityClassVersion": 7])
        version.expectRefused(400, at: "/data/entityClassVersion")
        let account = try await client.create("users", ["entityClassVersion": 1, "entityClassLevel": "Account"])
        account.expectRefused(400, at: "/data/entityClassLevel")
    }

    @Test("classLevel picks between a name defined at SubKey and at Global")
    func levelDisambiguates() async throws {
        let client = try TestClient()
        try await client.defineEntityClass([
            "name": "User", "extends": ["name": "User", "level": "Global"], "versions": [["version": 1]],
        ])
        let unqualified = try await client.create("users", ["id": "a", "entityClassVersion": 1])
        #expect(unqualified.data?["entityClassLevel"] == "SubKey")
        let global = try await client.create(
            "users", ["id": "b", "entityClassLevel": "Global", "entityClassVersion": 1])
        #expect(global.data?["entityClassLevel"] == "Global")
        let listGlobal = try await client.get("users?entity_class=User&entity_class_level=Global")
        #expect(listGlobal.ids == ["a", "b"])
        let listSubKey = try await client.get("users?entity_class=User&entity_class_level=SubKey")
        #expect(listSubKey.ids == ["a"])
    }

    @Test("entity.create needs entityClass")
    func entityClassRequired() async throws {
        let client = try TestClient()
        let reply = try await client.create("entities", ["entityClassVersion": 1])
        reply.expectError(400, "DS-0004", at: "/data/entityClass")
    }

    @Test("declared property types are checked on write")
    func propertyTypes() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        let reply = try await client.create(
            "entities", ["entityClass": "Product", "entityClassVersion": 1, "payload": ["price": "cheap"]])
        reply.expectRefused(400, at: "/data/payload/price")
    }

    @Test("class endpoints list, read, create, replace and delete")
    func classEndpoints() async throws {
        let client = try TestClient()
        let listed = try await client.get("entity-classes")
        #expect(listed.status == 200)
        let names = listed.data?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(names == ["Channel", "User"])
        let builtIn = try await client.get("entity-classes/User")
        #expect(builtIn.data?["ttlDays"] == 30)
        #expect(builtIn.data?["level"] == "Global")
        #expect(try await client.get("relationship-classes/Membership").data?["cardinality"] == "many-to-many")

        let created = try await client.send(
            "POST", "entity-classes", body: ["data": productClass], contentType: "application/json")
        #expect(created.status == 201)
        #expect(created.data?["ttlDays"] == 31)
        #expect(created.data?["eventsEnabled"] == false)
        #expect(created.data?["level"] == "SubKey")
        let duplicate = try await client.send(
            "POST", "entity-classes", body: ["data": productClass], contentType: "application/json")
        #expect(duplicate.status == 409)

        var replacement = try #require(productClass.objectValue)
        replacement["ttlDays"] = 2
        let replaced = try await client.send(
            "PUT", "entity-classes/Product", body: ["data": .object(replacement)], contentType: "application/json")
        #expect(replaced.status == 200)
        #expect(try await client.get("entity-classes/Product").data?["ttlDays"] == 2)

        let renamed = try await client.send(
            "PUT", "entity-classes/Other", body: ["data": .object(replacement)], contentType: "application/json")
        #expect(renamed.status == 400)
        let builtInChange = try await client.send(
            "PUT", "entity-classes/User", body: ["data": ["name": "User", "versions": [["version": 1]]]],
            contentType: "application/json")
        #expect(builtInChange.status == 400)

        // A class with objects cannot be deleted, nor lose a version its objects use.
        let product = try await client.create(
            "entities", ["id": "p1", "entityClass": "Product", "entityClassVersion": 1])
        #expect(product.status == 201)
        #expect(try await client.send("DELETE", "entity-classes/Product").status == 409)
        replacement["versions"] = [["version": 2]]
        let dropVersion = try await client.send(
            "PUT", "entity-classes/Product", body: ["data": .object(replacement)], contentType: "application/json")
        dropVersion.expectError(409, "DS-0802")
        #expect(try await client.remove("entities", "p1").status == 200)
        let deleted = try await client.send("DELETE", "entity-classes/Product")
        #expect(deleted.status == 200)
        #expect(deleted.body.isEmpty)
        #expect(try await client.get("entity-classes/Product").status == 404)
        #expect(try await client.send("DELETE", "entity-classes/User").status == 400)
    }

    @Test("relationship class endpoints list, read, create, replace and delete")
    func relationshipClassEndpoints() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        let created = try await client.send(
            "POST", "relationship-classes",
            body: [
                "data": [
                    "name": "Bought", "cardinality": "one-to-many", "entityAClass": "User", "entityBClass": "Product",
                    "versions": [["version": 1]],
                ]
            ], contentType: "application/json")
        #expect(created.status == 201)
        #expect(created.data?["cardinality"] == "one-to-many")
        #expect(created.data?["entityBClass"] == ["name": "Product", "level": "SubKey"])
        #expect(created.data?["ttlDays"] == nil)
        let names = try await client.get("relationship-classes").data?.arrayValue?.compactMap {
            $0["name"]?.stringValue
        }
        #expect(names == ["Membership", "Bought"])
        let badCardinality = try await client.send(
            "PUT", "relationship-classes/Bought",
            body: ["data": ["name": "Bought", "cardinality": "some", "versions": [["version": 1]]]],
            contentType: "application/json")
        badCardinality.expectRefused(400, at: "/data/cardinality")
        // The Product class is now used by Bought: it cannot be deleted until Bought is.
        #expect(try await client.send("DELETE", "entity-classes/Product").status == 409)
        #expect(try await client.send("DELETE", "relationship-classes/Bought").status == 200)
        #expect(try await client.send("DELETE", "entity-classes/Product").status == 200)
        #expect(try await client.send("DELETE", "relationship-classes/Membership").status == 400)
        let extendsMembership = try await client.send(
            "POST", "relationship-classes",
            body: ["data": ["name": "Vip", "extends": "Membership", "versions": [["version": 1]]]],
            contentType: "application/json")
        extendsMembership.expectRefused(400, at: "/data/extends")
        let wrongType = try await client.send(
            "POST", "relationship-classes", body: ["data": ["name": "X", "versions": [["version": 1]]]],
            contentType: "text/plain")
        #expect(wrongType.status == 415)
    }

    @Test("a malformed class definition is a 400 naming the field")
    func invalidClass() async throws {
        let client = try TestClient()
        let reply = try await client.send(
            "POST", "entity-classes",
            body: [
                "data": [
                    "name": "Bad",
                    "versions": [
                        ["version": 1, "properties": [["name": "p", "pointer": "/payload/p", "type": "date"]]]
                    ],
                ]
            ], contentType: "application/json")
        reply.expectRefused(400, at: "/data/versions/0/properties/0/type")
        let parent = try await client.send(
            "POST", "entity-classes", body: ["data": ["name": "X", "extends": "Nope", "versions": [["version": 1]]]],
            contentType: "application/json")
        parent.expectRefused(404, at: "/data/extends")
    }

    @Test("classes given at start exist in every keyset; a bad document is an error")
    func classTemplate() async throws {
        let document: JSONValue = ["entityClasses": [productClass, employeeClass]]
        let client = try TestClient(configuration: EmulatorConfiguration(classes: document, startTime: startInstant))
        let other = TestClient(emulator: client.emulator, subscribeKey: "other")
        #expect(try await client.get("entity-classes/Product").status == 200)
        #expect(try await other.get("entity-classes/Employee").data?["extends"] == ["name": "User", "level": "Global"])
        #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(classes: ["entityClasses": [["name": "X"]]]))
        }
    }
}
