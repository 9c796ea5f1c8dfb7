import JSONCore
import JSONPatch
import Testing

@Suite struct ApplyTests {
    static let successes: [(String, JSONValue, [PatchOperation], JSONValue)] = [
        ("add member", ["a": 1], [.add(path: "/b", value: 2)], ["a": 1, "b": 2]),
        ("add overwrites member", ["a": 1], [.add(path: "/a", value: [1])], ["a": [1]]),
        ("add inserts by index", ["x": [1, 3]], [.add(path: "/x/1", value: 2)], ["x": [1, 2, 3]]),
        ("add at length appends", ["x": [1]], [.add(path: "/x/1", value: 2)], ["x": [1, 2]]),
        ("add with - appends", ["x": [1]], [.add(path: "/x/-", value: 2)], ["x": [1, 2]]),
        ("add at root replaces document", ["a": 1], [.add(path: "", value: [1])], [1]),
        ("add empty key", [:], [.add(path: "/", value: 1)], ["": 1]),
        ("remove member", ["a": 1, "b": 2], [.remove(path: "/a")], ["b": 2]),
        ("remove element", [1, 2, 3], [.remove(path: "/1")], [1, 3]),
        ("replace element", [1, 2, 3], [.replace(path: "/2", value: "c")], [1, 2, "c"]),
        ("replace root", 1, [.replace(path: "", value: "x")], "x"),
        ("move member", ["a": ["b": 1], "c": 2], [.move(from: "/a/b", path: "/c")], ["a": [:], "c": 1]),
        ("move element", [1, 2, 3, 4], [.move(from: "/1", path: "/3")], [1, 3, 4, 2]),
        ("move to itself", ["a": 1], [.move(from: "/a", path: "/a")], ["a": 1]),
        ("copy", ["a": [1]], [.copy(from: "/a", path: "/b")], ["a": [1], "b": [1]]),
        ("copy into array", ["a": [1, 2]], [.copy(from: "/a/0", path: "/a/-")], ["a": [1, 2, 1]]),
        ("test int equals double", ["n": 1], [.test(path: "/n", value: 1.0)], ["n": 1]),
        ("test whole document", ["n": [1]], [.test(path: "", value: ["n": [1.0]])], ["n": [1]]),
        (
            "escaped keys", ["a/b": 1, "m~n": 2], [.replace(path: "/a~1b", value: 3), .remove(path: "/m~0n")],
            ["a/b": 3]
        ),
        ("dots are literal", ["user.name": 1], [.replace(path: "/user.name", value: 2)], ["user.name": 2]),
        (
            "later operations see earlier ones", [:],
            [.add(path: "/a", value: []), .add(path: "/a/-", value: 1), .copy(from: "/a", path: "/b")],
            ["a": [1], "b": [1]]
        ),
    ]

    @Test(arguments: successes)
    func appliesOperations(name: String, document: JSONValue, operations: [PatchOperation], expected: JSONValue)
        throws
    {
        #expect(try Patch.apply(operations, to: document) == expected, "\(name)")
        var mutable = document
        try mutable.apply(operations)
        #expect(mutable == expected, "\(name)")
    }

    static let failures: [(JSONValue, [PatchOperation], Int, PatchError.Code)] = [
        (["a": 1], [.remove(path: "/b")], 0, .pathNotFound),
        (["a": 1], [.replace(path: "/b", value: 1)], 0, .pathNotFound),
        (["a": 1], [.add(path: "/b/c", value: 1)], 0, .pathNotFound),
        (["a": 1], [.add(path: "/a/c", value: 1)], 0, .notAContainer),
        ([1], [.add(path: "/2", value: 1)], 0, .indexOutOfRange),
        ([1], [.add(path: "/01", value: 1)], 0, .invalidArrayIndex),
        ([1], [.add(path: "/x", value: 1)], 0, .invalidArrayIndex),
        ([1], [.remove(path: "/-")], 0, .indexOutOfRange),
        ([1], [.remove(path: "/1")], 0, .indexOutOfRange),
        (["a": ["b": 1]], [.move(from: "/a", path: "/a/b")], 0, .moveIntoDescendant),
        (["a": 1], [.move(from: "/x", path: "/y")], 0, .pathNotFound),
        (["a": 1], [.copy(from: "/x", path: "/y")], 0, .pathNotFound),
        (["a": "1"], [.test(path: "/a", value: 1)], 0, .testFailed),
        (["a": 1], [.add(path: "a", value: 1)], 0, .invalidPointer),
        (["a": 1], [.remove(path: "")], 0, .cannotRemoveRoot),
        (
            ["a": 1],
            [.add(path: "/b", value: 2), .replace(path: "/a", value: 3), .test(path: "/b", value: 3)], 2, .testFailed
        ),
    ]

    @Test(arguments: failures)
    func failsAtomicallyNamingTheOperation(
        document: JSONValue, operations: [PatchOperation], index: Int, code: PatchError.Code
    ) throws {
        let error = try #require(throws: PatchError.self) { try Patch.apply(operations, to: document) }
        #expect(error.operationIndex == index)
        #expect(error.code == code)
        #expect(error.description.contains("operation \(index)"))
        #expect(error.message.hasPrefix(operations[index].name))

        var mutable = document
        #expect(throws: PatchError.self) { try mutable.apply(operations) }
        #expect(mutable == document)
        #expect(mutable.description == document.description)
    }

    @Test func rollbackRestoresEveryKindOfChange() throws {
        let document: JSONValue = ["a": [1, 2, 3], "b": ["c": "d"], "e": 1.0, "f": 1]
        let operations: [PatchOperation] = [
            .add(path: "/a/1", value: "x"),
            .add(path: "/a/-", value: "y"),
            .remove(path: "/a/0"),
            .replace(path: "/b/c", value: 5),
            .add(path: "/b/c", value: 6),
            .move(from: "/e", path: "/b/e"),
            .move(from: "/a/0", path: "/a/3"),
            .copy(from: "/b", path: "/g"),
            .add(path: "", value: ["root": true]),
            .add(path: "/h", value: 1),
            .remove(path: "/missing"),
        ]
        var mutable = document
        let error = try #require(throws: PatchError.self) { try mutable.apply(operations) }
        #expect(error.operationIndex == 10)
        #expect(mutable == document)
        // Exact numbers come back too: 1.0 stays a double and 1 an integer.
        #expect(mutable["e"] == .double(1.0))
        #expect(mutable.description == document.description)
    }

    @Test func validateChecksPointersWithoutADocument() throws {
        try Patch.validate([.add(path: "/a", value: 1), .move(from: "/a", path: "/b"), .test(path: "", value: 1)])
        let badPointer = try #require(throws: PatchError.self) {
            try Patch.validate([.remove(path: "/a"), .copy(from: "a", path: "/b")])
        }
        #expect(badPointer.operationIndex == 1)
        #expect(badPointer.code == .invalidPointer)
        let intoChild = try #require(throws: PatchError.self) {
            try Patch.validate([.move(from: "/a", path: "/a/b")])
        }
        #expect(intoChild.code == .moveIntoDescendant)
        #expect(intoChild.operationIndex == 0)
    }

    @Test func errorMessageSaysWhy() throws {
        let error = try #require(throws: PatchError.self) {
            try Patch.apply([.test(path: "/status", value: "active")], to: ["status": "archived"])
        }
        #expect(error.pointer == "/status")
        #expect(error.message.contains("\"archived\""))
        #expect(error.message.contains("\"active\""))
    }
}
