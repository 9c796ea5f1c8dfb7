import JSONCore
import JSONPatch
import Testing

@Suite struct PatchBuilderTests {
    @Test func buildsPayloadPathsWithGuardsFirst() {
        var patch = PatchBuilder()
        patch.replace("price", with: 79.99)
        patch.append("tags", value: "sale")
        patch.require("status", equals: "active")
        patch.add("sizes/eu", value: 42)
        patch.remove("temp~Flag")
        patch.move(from: "oldTag", to: "tag")
        patch.copy(from: "price", to: "msrp")
        patch.test("address", "city", equals: "Pune")
        patch.add("user.name", value: "Ada")
        #expect(
            patch.operations == [
                .test(path: "/status", value: "active"),
                .replace(path: "/payload/price", value: 79.99),
                .add(path: "/payload/tags/-", value: "sale"),
                .add(path: "/payload/sizes~1eu", value: 42),
                .remove(path: "/payload/temp~0Flag"),
                .move(from: "/payload/oldTag", path: "/payload/tag"),
                .copy(from: "/payload/price", path: "/payload/msrp"),
                .test(path: "/payload/address/city", value: "Pune"),
                .add(path: "/payload/user.name", value: "Ada"),
            ])
    }

    @Test func guardDecidesWhetherThePatchApplies() throws {
        let object: JSONValue = ["status": "active", "payload": ["price": 99.99, "tags": ["new"], "tempFlag": true]]
        var patch = PatchBuilder()
        patch.require("status", equals: "active")
        patch.replace("price", with: 79.99)
        patch.append("tags", value: "sale")
        patch.remove("tempFlag")
        let updated = try Patch.apply(patch.operations, to: object)
        #expect(updated == ["status": "active", "payload": ["price": 79.99, "tags": ["new", "sale"]]])

        var archived = object
        archived["status"] = "archived"
        let error = try #require(throws: PatchError.self) { try Patch.apply(patch.operations, to: archived) }
        #expect(error.code == .testFailed)
        #expect(error.operationIndex == 0)
    }

    @Test func otherRootsAndDiffs() throws {
        var patch = PatchBuilder(root: .root)
        #expect(patch.isEmpty)
        patch.add("a", "0", value: 1)
        patch.addDiff(from: ["x": 1], to: ["x": 2])
        patch.append(.remove(path: "/raw"))
        #expect(!patch.isEmpty)
        #expect(
            patch.operations == [.add(path: "/a/0", value: 1), .replace(path: "/x", value: 2), .remove(path: "/raw")])
        #expect(PatchBuilder().path(["a/b", "c"]) == "/payload/a~1b/c")
    }
}
