import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// Classes for the index tests: `Thing` with properties of every kind (one nested, one only
/// `simple`), and `SubThing`, so lists cover a family of two classes.
private let indexClasses: JSONValue = [
    "entityClasses": [
        ClassFixtures.entityClass(
            "Thing",
            versions: [
                ClassFixtures.version([
                    ClassFixtures.property("a", "string", filtering: "full"),
                    ClassFixtures.property("n", "number", filtering: "full"),
                    ClassFixtures.property("b", "boolean", filtering: "full"),
                    ClassFixtures.property("s", "string", filtering: "simple"),
                    ClassFixtures.property("o", "object", filtering: "full"),
                    ClassFixtures.property("x", "number", filtering: "full", pointer: "/payload/o/x"),
                ])
            ]),
        ClassFixtures.entityClass(
            "SubThing", extends: "Thing",
            versions: [ClassFixtures.version([ClassFixtures.property("e", "string", filtering: "full")])]),
    ]
]

private let thingType = TestClient.mediaType("entity")

/// Strings whose order and identity trip naive comparisons: canonically equivalent pairs
/// (U+212B / U+00C5, NFC / NFD `café`), prefixes, case, non-BMP.
private let strings = [
    "", "a", "A", "ab", "b", "caf\u{E9}", "cafe\u{301}", "\u{212B}", "\u{00C5}", "z", "\u{E9}", "\u{1F600}", "sku-1",
    "sku-10", "sku-2",
]
/// Numbers as JSON values: integers and doubles that are equal by value, and a pair that only
/// differs past a double's precision.
private let numbers: [JSONValue] = [
    .int(-3), .int(0), .int(1), .int(2), .int(10), .int(9_007_199_254_740_993), .int(9_007_199_254_740_992),
    .double(0.5), .double(1.0), .double(2.0), .double(-0.0), .double(1.5), .double(9_007_199_254_740_992.0),
]
/// Number literals as a filter writes them.
private let numberLiterals = [
    "-3", "0", "1", "2", "10", "9007199254740993", "9007199254740992", "0.5", "1.0", "2.0", "-0.0", "1.5",
    "9007199254740992.0", "-1e300",
]
private let patterns = ["a*", "*b", "caf*", "*", "sku-1*", "*\u{E9}"]

/// A pair of emulators fed the same requests: one with property indexes, one scanning.
private struct Pair {
    let indexed: TestClient
    let scanning: TestClient
    let faults = StorageFaults()
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var withIndexes = EmulatorConfiguration(
            classes: indexClasses, stateFile: directory.appendingPathComponent("state.json").path,
            startTime: startInstant)
        withIndexes.storageFaults = faults
        var withoutIndexes = EmulatorConfiguration(classes: indexClasses, startTime: startInstant)
        withoutIndexes.propertyIndexes = false
        indexed = TestClient(emulator: try Emulator(configuration: withIndexes))
        scanning = TestClient(emulator: try Emulator(configuration: withoutIndexes))
    }

    /// Sends to both and requires the same status; returns the indexed emulator's reply.
    @discardableResult
    func both(_ method: String, _ rest: String, body: JSONValue? = nil, contentType: String? = nil) async throws
        -> Reply
    {
        let left = try await indexed.send(method, rest, body: body, contentType: contentType)
        let right = try await scanning.send(method, rest, body: body, contentType: contentType)
        try #require(left.status == right.status, "\(method) \(rest): \(left.status) vs \(right.status)")
        return left
    }
}

@Suite("Property indexes")
struct PropertyIndexTests {
    // MARK: The property test

    @Test(
        "random filters and sorts over random data with writes, deletes and rollbacks: indexed pages equal the scan's")
    func indexedEqualsScan() async throws {
        let pair = try Pair()
        defer { try? FileManager.default.removeItem(at: pair.directory) }
        var random = SeededRandomNumberGenerator(seed: 0x1D_E8)
        let ids = (0..<50).map { "t\($0)" } + ["\u{212B}", "\u{00C5}", "caf\u{E9}", "cafe\u{301}", "T", "t"]
        for _ in 0..<80 { try await Self.randomWrite(pair, ids: ids, using: &random) }
        var compared = 0
        var rollbacks = 0
        for round in 0..<160 {
            if round % 3 == 0 {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    try await Self.randomWrite(pair, ids: ids, using: &random)
                }
            }
            if round % 11 == 5 {
                // A write whose save fails on the indexed emulator only: rolled back there, so
                // both must still agree afterwards.
                let id = ids.randomElement(using: &random) ?? "t0"
                let path = "entities/\(PercentDecoding.encode(id))"
                let exists = try await pair.indexed.get(path).status == 200
                pair.faults.inject(.appendFails)
                let payload = Self.randomPayload(using: &random)
                let reply =
                    exists
                    ? try await pair.indexed.send(
                        "PUT", path, body: ["data": ["entityClassVersion": 1, "payload": payload]],
                        contentType: thingType)
                    : try await pair.indexed.send(
                        "POST", "entities",
                        body: [
                            "data": [
                                "id": .string(id), "entityClass": "Thing", "entityClassVersion": 1, "payload": payload,
                            ]
                        ],
                        contentType: thingType)
                #expect(reply.status == 500)
                if reply.status == 500 { rollbacks += 1 }
            }
            compared += try await Self.comparePages(pair, query: Self.randomQuery(using: &random), using: &random)
        }
        #expect(compared > 300)
        #expect(rollbacks > 0)
    }

    /// Pages through `query` on both emulators (with a write between some pages) and requires
    /// the same pages; returns how many pages were compared.
    private static func comparePages(_ pair: Pair, query: String, using random: inout SeededRandomNumberGenerator)
        async throws -> Int
    {
        var leftCursor: String?
        var rightCursor: String?
        var pages = 0
        while pages < 40 {
            let left = try await pair.indexed.get(
                "entities?" + query + (leftCursor.map { "&cursor=" + PercentDecoding.encode($0) } ?? ""))
            let right = try await pair.scanning.get(
                "entities?" + query + (rightCursor.map { "&cursor=" + PercentDecoding.encode($0) } ?? ""))
            try #require(left.status == right.status, "\(query): \(left.status) vs \(right.status)")
            guard left.status == 200 else { return pages }
            pages += 1
            try #require(left.data == right.data, "\(query), page \(pages): \(left.ids) vs \(right.ids)")
            try #require((left.nextCursor == nil) == (right.nextCursor == nil), "\(query): has_next differs")
            guard let next = left.nextCursor, let other = right.nextCursor else { return pages }
            leftCursor = next
            rightCursor = other
            if Int.random(in: 0..<4, using: &random) == 0 {
                try await randomWrite(pair, ids: (0..<50).map { "t\($0)" }, using: &random)
            }
        }
        return pages
    }

    private static func randomValue(_ name: String, using random: inout SeededRandomNumberGenerator) -> JSONValue? {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1: return nil
        case 2: return .null
        default:
            switch name {
            case "a", "s", "e": return .string(strings.randomElement(using: &random) ?? "")
            case "n": return numbers.randomElement(using: &random)
            case "b": return .bool(Bool.random(using: &random))
            default:
                var members: [String: JSONValue] = [:]
                if Bool.random(using: &random) { members["x"] = numbers.randomElement(using: &random) }
                return .object(members)
            }
        }
    }

    private static func randomPayload(using random: inout SeededRandomNumberGenerator) -> JSONValue {
        var payload: [String: JSONValue] = [:]
        for name in ["a", "n", "b", "s", "o"] {
            if let value = randomValue(name, using: &random) { payload[name] = value }
        }
        return .object(payload)
    }

    private static func randomWrite(_ pair: Pair, ids: [String], using random: inout SeededRandomNumberGenerator)
        async throws
    {
        let id = ids.randomElement(using: &random) ?? "t0"
        let path = "entities/\(PercentDecoding.encode(id))"
        let status: JSONValue = ["active", "away", "A", "\u{212B}", .null].randomElement(using: &random) ?? .null
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1:
            var data: [String: JSONValue] = [
                "id": .string(id), "entityClass": Bool.random(using: &random) ? "Thing" : "SubThing",
                "entityClassVersion": 1, "payload": randomPayload(using: &random),
            ]
            if case .string = status { data["status"] = status }
            try await pair.both("POST", "entities", body: ["data": .object(data)], contentType: thingType)
        case 2:
            try await pair.both(
                "PUT", path,
                body: ["data": ["entityClassVersion": 1, "status": status, "payload": randomPayload(using: &random)]],
                contentType: thingType)
        case 3:
            let name = ["a", "n", "b", "s", "o"].randomElement(using: &random) ?? "a"
            let value = randomValue(name, using: &random) ?? .null
            try await pair.both(
                "PATCH", path, body: [["op": "add", "path": .string("/payload/\(name)"), "value": value]],
                contentType: "application/json-patch+json")
        default:
            try await pair.both("DELETE", path)
        }
    }

    private static func randomCondition(using random: inout SeededRandomNumberGenerator) -> String {
        let property = ["a", "n", "b", "s", "o", "x", "status", "id", "e"].randomElement(using: &random) ?? "a"
        let op = ["==", "!=", "<", "<=", ">", ">=", "LIKE", "SLIKE", "ILIKE"].randomElement(using: &random) ?? "=="
        let value: String
        if ["LIKE", "SLIKE", "ILIKE"].contains(op), Int.random(in: 0..<4, using: &random) > 0 {
            value = "\"" + (patterns.randomElement(using: &random) ?? "*") + "\""
        } else {
            switch Int.random(in: 0..<10, using: &random) {
            case 0: value = "null"
            case 1: value = Bool.random(using: &random) ? "true" : "false"
            case 2, 3, 4, 5:
                // Mostly the property's own kind, so most conditions can match something.
                if ["n", "x"].contains(property) {
                    value = numberLiterals.randomElement(using: &random) ?? "0"
                } else if property == "b" {
                    value = Bool.random(using: &random) ? "true" : "false"
                } else if property == "id" {
                    value = "\"t\(Int.random(in: 0..<50, using: &random))\""
                } else if property == "status" {
                    value = "\"" + (["active", "away", "A", "\u{212B}"].randomElement(using: &random) ?? "A") + "\""
                } else {
                    value = "\"" + (strings.randomElement(using: &random) ?? "") + "\""
                }
            case 6, 7: value = numberLiterals.randomElement(using: &random) ?? "0"
            default: value = "\"" + (strings.randomElement(using: &random) ?? "") + "\""
            }
        }
        return "\(property) \(op) \(value)"
    }

    private static func randomFilter(depth: Int, using random: inout SeededRandomNumberGenerator) -> String {
        let choice = depth > 1 ? 0 : Int.random(in: 0..<6, using: &random)
        switch choice {
        case 0, 1, 2: return randomCondition(using: &random)
        case 3: return "!(" + randomFilter(depth: depth + 1, using: &random) + ")"
        default:
            let joiner = Bool.random(using: &random) ? " && " : " || "
            let parts = (0..<Int.random(in: 2...3, using: &random)).map { _ in
                "(" + randomFilter(depth: depth + 1, using: &random) + ")"
            }
            return parts.joined(separator: joiner)
        }
    }

    private static func randomQuery(using random: inout SeededRandomNumberGenerator) -> String {
        var parts = [
            "entity_class=" + (Int.random(in: 0..<4, using: &random) == 0 ? "SubThing" : "Thing"),
            "limit=\(Int.random(in: 1...7, using: &random))",
        ]
        if Int.random(in: 0..<6, using: &random) > 0 {
            let parameter = Int.random(in: 0..<4, using: &random) == 0 ? "filter" : "filter_fast"
            parts.append(parameter + "=" + PercentDecoding.encode(randomFilter(depth: 0, using: &random)))
        }
        let fields = ["a", "n", "b", "s", "o", "x", "status", "updatedAt", "createdAt", "id"]
        let count = Int.random(in: 0...2, using: &random)
        var sort: [String] = []
        while sort.count < count {
            let field = fields.randomElement(using: &random) ?? "n"
            if sort.contains(where: { $0.hasPrefix(field + ":") || $0 == field }) { continue }
            sort.append(field + (Bool.random(using: &random) ? ":desc" : ""))
        }
        if !sort.isEmpty { parts.append("sort=" + sort.joined(separator: ",")) }
        return parts.joined(separator: "&")
    }

    // MARK: Edges, each on a small store with known answers

    /// Creates things with `payloads` (id → payload) on both emulators.
    private static func seeded(_ payloads: [(String, JSONValue)], status: String? = nil) async throws -> Pair {
        let pair = try Pair()
        for (id, payload) in payloads {
            var data: [String: JSONValue] = [
                "id": .string(id), "entityClass": "Thing", "entityClassVersion": 1, "payload": payload,
            ]
            if let status { data["status"] = .string(status) }
            let reply = try await pair.both("POST", "entities", body: ["data": .object(data)], contentType: thingType)
            try #require(reply.status == 201)
        }
        return pair
    }

    /// The ids the indexed emulator lists for `query` (all pages), after checking the scan agrees.
    private static func listed(_ pair: Pair, _ query: String) async throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        var other: String?
        repeat {
            let left = try await pair.indexed.get(
                "entities?entity_class=Thing&limit=2&" + query
                    + (cursor.map { "&cursor=" + PercentDecoding.encode($0) } ?? ""))
            let right = try await pair.scanning.get(
                "entities?entity_class=Thing&limit=2&" + query
                    + (other.map { "&cursor=" + PercentDecoding.encode($0) } ?? ""))
            try #require(left.status == 200, "\(query): \(String(decoding: left.body, as: UTF8.self))")
            #expect(left.data == right.data)
            ids += left.ids
            cursor = left.nextCursor
            other = right.nextCursor
        } while cursor != nil
        return ids
    }

    @Test("integers and doubles compare by value, exactly: 1 == 1.0, 2^53 + 1 is not 2^53")
    func mixedNumbers() async throws {
        let pair = try await Self.seeded([
            ("i1", ["n": 1]), ("d1", ["n": 1.0]), ("big", ["n": .int(9_007_199_254_740_993)]),
            ("bigd", ["n": .double(9_007_199_254_740_992)]), ("half", ["n": 0.5]), ("none", [:]),
        ])
        defer { try? FileManager.default.removeItem(at: pair.directory) }
        #expect(try await Self.listed(pair, "filter_fast=n%20%3D%3D%201") == ["d1", "i1"])
        #expect(try await Self.listed(pair, "filter_fast=n%20%3D%3D%201.0") == ["d1", "i1"])
        #expect(try await Self.listed(pair, "filter_fast=n%20%3D%3D%209007199254740993") == ["big"])
        #expect(try await Self.listed(pair, "filter_fast=n%20%3E%209007199254740992") == ["big"])
        #expect(try await Self.listed(pair, "filter_fast=n%20%3C%201") == ["half"])
        #expect(try await Self.listed(pair, "filter_fast=n%20%3C%3D%201") == ["d1", "half", "i1"])
        // Sorted: by value, ties (1 and 1.0; 2^53 and 2^53 + 1, equal as doubles) by id.
        #expect(try await Self.listed(pair, "sort=n") == ["none", "half", "d1", "i1", "big", "bigd"])
        #expect(try await Self.listed(pair, "sort=n:desc") == ["big", "bigd", "d1", "i1", "half", "none"])
    }

    @Test("strings compare by Unicode scalars: canonically equivalent strings are different values")
    func scalarStrings() async throws {
        let pair = try await Self.seeded([
            ("angstrom", ["a": "\u{212B}"]), ("aring", ["a": "\u{00C5}"]), ("nfc", ["a": "caf\u{E9}"]),
            ("nfd", ["a": "cafe\u{301}"]), ("upper", ["a": "A"]), ("empty", ["a": ""]),
        ])
        defer { try? FileManager.default.removeItem(at: pair.directory) }
        #expect(
            try await Self.listed(pair, "filter_fast=" + PercentDecoding.encode("a == \"\u{212B}\"")) == ["angstrom"])
        #expect(try await Self.listed(pair, "filter_fast=" + PercentDecoding.encode("a == \"caf\u{E9}\"")) == ["nfc"])
        #expect(
            try await Self.listed(pair, "filter_fast=" + PercentDecoding.encode("a < \"caf\"")) == ["empty", "upper"])
        #expect(
            try await Self.listed(pair, "filter_fast=" + PercentDecoding.encode("a >= \"cafe\"")) == [
                "angstrom", "aring", "nfc", "nfd",
            ])
        // U+0041 < "cafe\u{301}" < "caf\u{E9}" < U+00C5 < U+212B
        #expect(try await Self.listed(pair, "sort=a") == ["empty", "upper", "nfd", "nfc", "aring", "angstrom"])
    }

    @Test("null, missing and containers: == null matches null and missing, not {}; sorts put them first, ties by id")
    func nullsAndContainers() async throws {
        let pair = try await Self.seeded([
            ("missing", [:]), ("null", ["o": .null]), ("empty", ["o": [:]]), ("one", ["o": ["x": 1]]),
            ("two", ["o": ["x": 2]]),
        ])
        defer { try? FileManager.default.removeItem(at: pair.directory) }
        #expect(try await Self.listed(pair, "filter_fast=o%20%3D%3D%20null") == ["missing", "null"])
        #expect(try await Self.listed(pair, "filter_fast=x%20%3D%3D%20null") == ["empty", "missing", "null"])
        #expect(try await Self.listed(pair, "filter_fast=x%20%3E%3D%201") == ["one", "two"])
        #expect(try await Self.listed(pair, "sort=x:desc") == ["two", "one", "empty", "missing", "null"])

    }

    @Test("and/or of indexed and unindexed conditions, negation, id and status lookups")
    func combinations() async throws {
        var payloads: [(String, JSONValue)] = []
        for index in 0..<30 {
            payloads.append(
                ("p\(index)", ["n": .int(Int64(index % 10)), "a": .string(index % 2 == 0 ? "even" : "odd")]))
        }
        let pair = try await Self.seeded(payloads, status: "active")
        defer { try? FileManager.default.removeItem(at: pair.directory) }
        func query(_ filter: String) -> String { "filter_fast=" + PercentDecoding.encode(filter) }
        #expect(try await Self.listed(pair, query(#"n == 3 && a LIKE "o*""#)) == ["p13", "p23", "p3"])
        #expect(try await Self.listed(pair, query(#"n == 3 || n == 4"#)) == ["p13", "p14", "p23", "p24", "p3", "p4"])
        #expect(try await Self.listed(pair, query(#"(n == 3 || a != "odd") && n < 2"#)) == ["p0", "p10", "p20"])
        #expect(try await Self.listed(pair, query(#"!(n >= 1) && a == "even""#)) == ["p0", "p10", "p20"])
        #expect(try await Self.listed(pair, query(#"id == "p7" || id == "p8""#)) == ["p7", "p8"])
        #expect(try await Self.listed(pair, query(#"status == "active" && n == 9"#)) == ["p19", "p29", "p9"])
        #expect(try await Self.listed(pair, query(#"n == 3"#) + "&sort=a:desc,id:desc") == ["p3", "p23", "p13"])
    }

    @Test("a class replaced with a new filterable property indexes the objects already stored")
    func redefinedClass() async throws {
        let pair = try await Self.seeded([("p1", ["n": 1, "w": "yes"]), ("p2", ["n": 2, "w": "no"])])
        defer { try? FileManager.default.removeItem(at: pair.directory) }
        let replacement = ClassFixtures.entityClass(
            "Thing",
            versions: [
                ClassFixtures.version([
                    ClassFixtures.property("n", "number", filtering: "full"),
                    ClassFixtures.property("w", "string", filtering: "full"),
                ])
            ])
        let reply = try await pair.both(
            "PUT", "entity-classes/Thing", body: ["data": replacement], contentType: "application/json")
        try #require(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(try await Self.listed(pair, "filter_fast=w%20%3D%3D%20%22yes%22") == ["p1"])
        #expect(try await Self.listed(pair, "sort=w") == ["p2", "p1"])
    }

    @Test("a rolled-back transaction leaves every index equal to one rebuilt from the store")
    func rollbackKeepsIndexes() throws {
        let changes = ChangeLog()
        changes.isEnabled = true
        var registry = ClassRegistry()
        let engine = Engine(filterFastConditionLimit: 10, clock: .manual(startingAt: startInstant))
        try engine.store.setClassTemplate(indexClasses)
        for definition in engine.store.classTemplate { registry.store(definition) }
        let keyset = Keyset(subscribeKey: "k", registry: registry, changes: changes)
        let key = ClassKey(name: "Thing", level: .subKey)
        func object(_ id: String, _ n: JSONValue, revision: UInt64) -> StoredObject {
            StoredObject(
                id: id, kind: .entity, classKey: key, classVersion: 1, status: "s\(revision % 3)",
                payload: ["n": n], createdAt: 1, updatedAt: Int64(revision), expiresAt: .max, eTag: "e\(revision)",
                revision: revision)
        }
        for index in 0..<40 { keyset.insert(object("p\(index)", .int(Int64(index % 7)), revision: UInt64(index))) }
        changes.begin(revision: 40)
        keyset.update(object("p3", .double(2.5), revision: 41))
        keyset.remove(.entity, "p4")
        keyset.insert(object("new", .int(1), revision: 42))
        keyset.update(object("p5", .string("x"), revision: 43))
        changes.rollBack()
        for source in [IndexSource.status, .updatedAt, .pointer(["payload", "n"])] {
            let index = try #require(keyset.propertyIndex(.entity, ofClass: key, source))
            let rebuilt = PropertyIndex(source: source)
            for box in keyset.members(.entity, ofClass: key).values { rebuilt.insert(box) }
            #expect(index.entries.map(\.box.object.id) == rebuilt.entries.map(\.box.object.id))
            #expect(index.entries.map(\.key) == rebuilt.entries.map(\.key))
            #expect(index.entries.allSatisfy { keyset.box(.entity, $0.box.object.id) === $0.box })
            #expect(index.count == 40)
        }
    }

    // MARK: Over HTTP

    @Test("over HTTP: paging a sorted, filtered list with cursors returns each match once, in order")
    func pagingOverHTTP() async throws {
        let emulator = try Emulator(
            configuration: EmulatorConfiguration(classes: indexClasses, startTime: startInstant))
        let client = TestClient(emulator: emulator, subscribeKey: "demo")
        var expected: [(Double, String)] = []
        for index in 0..<120 {
            let price = Double((index * 37) % 50) / 2
            let kind = index % 3 == 0 ? "even" : "odd"
            let reply = try await client.create(
                "entities",
                [
                    "id": .string("p\(index)"), "entityClass": "Thing", "entityClassVersion": 1,
                    "payload": ["n": .double(price), "a": .string(kind)],
                ])
            try #require(reply.status == 201)
            if kind == "even", price >= 5 { expected.append((price, "p\(index)")) }
        }
        // n descending, ties by id ascending (UTF-8 bytes).
        let order = expected.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1.utf8.lexicographicallyPrecedes($1.1.utf8) }
        let port = try #require(try await emulator.start().port.flatMap { UInt16(exactly: $0) })
        let filter = PercentDecoding.encode(#"a == "even" && n >= 5"#)
        var target = "/v1/datasync/subkeys/demo/entities?entity_class=Thing&limit=7&sort=n:desc&filter_fast=\(filter)"
        var seen: [String] = []
        var pages = 0
        while pages < 50 {
            let reply = try await exchange(
                port: port, "GET \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            try #require(reply.status == 200, "\(reply.body)")
            let json = try JSONValue(parsing: reply.body)
            seen += json["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            pages += 1
            guard let next = json["links"]?["next"]?.stringValue else { break }
            target = next
        }
        await emulator.stop()
        #expect(seen == order.map(\.1))
        #expect(pages == (order.count + 6) / 7)
    }
}
