import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// The two decoders of DataSync answers kept equal: the byte reader (`objectDirectly`,
/// `listDirectly`) and the tree decoder it falls back to. Every body here, hand-written and
/// generated (well-formed, odd and malformed), goes through both: where the byte reader gives a
/// value, the tree decoder must give the same one, to the byte of its wire form; and the public
/// entry point must give exactly the tree decoder's value or error.
@Suite("DataSync decode paths")
struct DataSyncDecodePathTests {
    typealias Fixtures = DataSyncWireFixtures

    // MARK: Bodies

    static let fullUser = #"""
        {"data":{"id":"u1","entityClass":"Employee","entityClassVersion":2,"entityClassLevel":"SubKey",\#
        "status":"active","payload":{"firstName":"Ada","tags":["a",1,2.5,true,null],"n":{"x":{}}},\#
        "createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T09:34:55.5+02:00",\#
        "expiresAt":"2026-10-08T00:00:00Z","eTag":"e1","unknown":[{"deep":[1,2,{"a":null}]}],"links":{}},\#
        "links":{"self":"/x"}}
        """#

    /// Single-object answers of every kind, with odd but valid shapes.
    static let objectBodies: [String] = [
        fullUser,
        #"{"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        // White space everywhere JSON allows it.
        " \n{ \"data\" :\t{ \"id\" : \"u\" , \"entityClassVersion\" : 1 , \"createdAt\" : \"2026-09-07T07:34:55Z\" ,"
            + " \"updatedAt\" : \"2026-09-07T07:34:55Z\" , \"eTag\" : \"e\" } } \r\n",
        // Nulls for optional fields, numbers as doubles and strings, a repeated key (the last wins).
        #"{"data":{"id":"u","entityClass":null,"entityClassVersion":1.0,"status":null,"payload":null,"expiresAt":null,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e","id":"v"}}"#,
        #"{"data":{"id":"u","entityClassVersion":"3","createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e","status":"a","status":"b"}}"#,
        // Escapes and non-ASCII in values; escaped and non-ASCII names (the tree's to read).
        #"{"data":{"id":"u\"\\\/\u00e9\ud83d\ude00","entityClassVersion":1,"status":"é\n","createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        #"{"data":{"\u0069d":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        #"{"data":{"id":"u","entityClassVersion":1,"naïve":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        #"{"d\u0061ta":{"id":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        // Two `data` members: the last wins in a parsed object.
        #"{"data":1,"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        #"{"data":{"id":"a"},"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        String(
            decoding: Fixtures.envelope(Fixtures.user(id: "u1", status: "s", payload: ["a": [1, 2]])), as: UTF8.self),
        String(decoding: Fixtures.envelope(Fixtures.channel(id: "c1")), as: UTF8.self),
        String(decoding: Fixtures.envelope(Fixtures.entity(id: "e1", className: "Product")), as: UTF8.self),
        String(
            decoding: Fixtures.envelope(
                Fixtures.entity(id: "e1", className: "Product", extra: ["entityClassLevel": "Galaxy"])),
            as: UTF8.self),
        // Malformed: not JSON, the wrong shape, missing or mistyped fields, bad dates, trailing bytes.
        "", " ", "null", "[]", "{}", #"{"data":null}"#, #"{"data":[]}"#, #"{"data":{}}"#, #"{"data":"x"}"#,
        #"{"data":{"id":1,"entityClassVersion":1}}"#,
        #"{"data":{"id":"u","entityClassVersion":1.5,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        #"{"data":{"id":"u","entityClassVersion":1,"createdAt":"yesterday","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        #"{"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-02-30T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}}"#,
        #"{"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":7}}"#,
        #"{"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"}} x"#,
        #"{"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e"},}"#,
        #"{"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e",}}"#,
        #"{"data":{"id":"u","entityClassVersion":1,"createdAt":"2026-09-07T07:34:55Z","updatedAt":"2026-09-07T07:34:55Z","eTag":"e","x":01}}"#,
        #"{"errors":[{"errorCode":"DS-0100","message":"Missing required property"}]}"#,
    ]

    static let membership = Fixtures.membership(id: "m1", channelId: "c1", userId: "u1", payload: ["r": "admin"])
    static let oldMembership = Fixtures.object([
        "id": "m2", "relationshipClassVersion": 1, "entityAId": "c2", "entityBId": "u2",
    ])
    static let relationship = Fixtures.relationship(
        id: "r1", className: "Follows", entityAId: "a", entityBId: "b", status: "on")

    /// List answers, with and without a page, and malformed ones.
    static let listBodies: [String] = [
        String(decoding: Fixtures.page([membership, oldMembership], cursor: "next", limit: 2), as: UTF8.self),
        String(decoding: Fixtures.page([membership]), as: UTF8.self),
        String(decoding: Fixtures.page([relationship, relationship]), as: UTF8.self),
        String(decoding: Fixtures.page([Fixtures.user(id: "u1"), Fixtures.user(id: "u2")]), as: UTF8.self),
        #"{"data":[]}"#, #"{"data":[],"meta":null}"#, #"{"data":[],"meta":{"has_next":false,"next_cursor":"c"}}"#,
        #"{"data":[],"meta":{"has_next":true,"next_cursor":"c","limit":"10"}}"#,
        #"{"data":[],"meta":{"has_next":"yes"}}"#, #"{"data":[],"meta":[]}"#,
        #"{"data":[],"meta":{},"meta":{"has_next":true}}"#,
        #"{"data":[1]}"#, #"{"data":[{}]}"#, #"{"data":{}}"#, #"{"meta":{}}"#, #"{"data":[],"data":[]}"#,
        #"{"data":[] , "links" : {"next":"/x?cursor=c"} , "meta":{"has_next":true,"next_cursor":"c"}}"#,
    ]

    // MARK: The comparison

    /// Runs `body` through both decoders of `T`'s single-object answer; true when the byte reader
    /// took it. With `entry`, also the public entry point, which must give the tree's outcome.
    @discardableResult
    static func compareObject<T: DataSyncWireConvertible & Equatable>(
        _ type: T.Type, _ body: [UInt8], entry: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let tree = outcome { try DataSyncEnvelope.objectThroughTree(T.self, from: body) }
        if entry {
            let viaEntry = outcome { try DataSyncEnvelope.object(T.self, from: body) }
            #expect(viaEntry == tree, "\(String(decoding: body, as: UTF8.self))", sourceLocation: sourceLocation)
        }
        guard let direct = DataSyncEnvelope.objectDirectly(T.self, from: body) else { return false }
        let taken = outcome { direct }
        if taken != tree {
            Issue.record(
                "the byte reader gave \(taken), the tree \(tree), for \(String(decoding: body, as: UTF8.self))",
                sourceLocation: sourceLocation)
        }
        return true
    }

    /// As ``compareObject(_:_:entry:sourceLocation:)`` for a list answer.
    @discardableResult
    static func compareList<T: DataSyncWireConvertible & Equatable>(
        _ type: T.Type, _ body: [UInt8], entry: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let tree = listOutcome { try DataSyncEnvelope.listThroughTree(T.self, from: body) }
        if entry {
            let viaEntry = listOutcome { try DataSyncEnvelope.list(T.self, from: body) }
            #expect(viaEntry == tree, "\(String(decoding: body, as: UTF8.self))", sourceLocation: sourceLocation)
        }
        guard let direct = DataSyncEnvelope.listDirectly(T.self, from: body) else { return false }
        let taken = listOutcome { direct }
        if taken != tree {
            Issue.record(
                "the byte reader gave \(taken), the tree \(tree), for \(String(decoding: body, as: UTF8.self))",
                sourceLocation: sourceLocation)
        }
        return true
    }

    /// What a decode gave, in a form that compares exactly: the wire JSON of the value (numbers
    /// keep their kind, strings their scalars, dates their microseconds) and its dates' full
    /// precision, or the error's description.
    static func outcome<T: DataSyncWireConvertible>(_ decode: () throws -> T) -> String {
        do {
            return try exact(decode())
        } catch {
            return "error: \(error)"
        }
    }

    static func listOutcome<T: DataSyncWireConvertible>(_ decode: () throws -> ([T], PubNubDataSyncPage?)) -> String {
        do {
            let (objects, page) = try decode()
            return try objects.map(exact).joined(separator: "\n") + "\npage: \(String(describing: page))"
        } catch {
            return "error: \(error)"
        }
    }

    static func exact<T: DataSyncWireConvertible>(_ value: T) throws -> String {
        var text = try String(decoding: JSONValue.object(value.wireFields).jsonBytes(sortedKeys: true), as: UTF8.self)
        if let object = value as? any PubNubDataSyncObject {
            let dates = [object.createdAt, object.updatedAt, object.expiresAt ?? .distantPast]
            text += " " + dates.map { "\($0.timeIntervalSince1970.bitPattern)" }.joined(separator: ",")
        }
        return text
    }

    // MARK: Tests

    @Test("every hand-written single-object answer decodes the same through both paths")
    func handWrittenObjects() {
        for body in Self.objectBodies.map({ Array($0.utf8) }) {
            Self.compareObject(PubNubDataSyncUser.self, body)
            Self.compareObject(PubNubDataSyncChannel.self, body)
            Self.compareObject(PubNubDataSyncEntity.self, body)
        }
        let memberships = [Self.membership, Self.oldMembership, Self.relationship].map { Fixtures.envelope($0) }
        for body in memberships {
            Self.compareObject(PubNubDataSyncMembership.self, body)
            Self.compareObject(PubNubDataSyncRelationship.self, body)
        }
    }

    @Test("every hand-written list answer decodes the same through both paths")
    func handWrittenLists() {
        for body in Self.listBodies.map({ Array($0.utf8) }) {
            Self.compareList(PubNubDataSyncUser.self, body)
            Self.compareList(PubNubDataSyncMembership.self, body)
            Self.compareList(PubNubDataSyncRelationship.self, body)
        }
    }

    /// The byte reader must take the service's usual answers, or the fast path is dead code: a
    /// model reading a member its key list leaves out, for one, would send every answer to the tree.
    @Test("the byte reader takes the usual answer of each of the five kinds")
    func byteReaderTakesUsualAnswers() {
        let expiry: [String: JSONValue] = ["expiresAt": "2026-10-08T00:00:00Z"]
        #expect(Self.compareObject(PubNubDataSyncUser.self, Array(Self.fullUser.utf8)))
        #expect(
            Self.compareObject(PubNubDataSyncUser.self, Fixtures.envelope(Fixtures.user(id: "u", extra: expiry))))
        #expect(Self.compareObject(PubNubDataSyncChannel.self, Fixtures.envelope(Fixtures.channel(id: "c"))))
        #expect(
            Self.compareObject(
                PubNubDataSyncEntity.self, Fixtures.envelope(Fixtures.entity(id: "e", className: "P", status: "s"))))
        #expect(Self.compareObject(PubNubDataSyncMembership.self, Fixtures.envelope(Self.membership)))
        #expect(Self.compareObject(PubNubDataSyncMembership.self, Fixtures.envelope(Self.oldMembership)))
        #expect(Self.compareObject(PubNubDataSyncRelationship.self, Fixtures.envelope(Self.relationship)))
        #expect(Self.compareList(PubNubDataSyncMembership.self, Array(Self.listBodies[0].utf8)))
        #expect(Self.compareList(PubNubDataSyncRelationship.self, Array(Self.listBodies[2].utf8)))
        #expect(Self.compareList(PubNubDataSyncUser.self, Array(Self.listBodies[3].utf8)))
    }

    @Test("malformed answers give the tree decoder's error and the byte reader takes none of them")
    func malformedAnswersGiveTheTreesError() throws {
        let body = Array(#"{"data":{"id":"u","entityClassVersion":1,"createdAt":"later"}}"#.utf8)
        #expect(DataSyncEnvelope.objectDirectly(PubNubDataSyncUser.self, from: body) == nil)
        let error = try #require(
            throws: PubNubError.self, performing: { try DataSyncEnvelope.object(PubNubDataSyncUser.self, from: body) })
        #expect(error.reason == .malformedResponse)
        #expect(error.message.contains("\"createdAt\" is not an ISO 8601 timestamp"))
    }

    /// Mutations of well-formed answers: every truncation, every byte deleted, replaced by each
    /// of the bytes that change JSON's structure, or doubled, and seeded random edits on top.
    @Test("a generated corpus of answers decodes the same through both paths")
    func generatedCorpus() {
        let objectSeeds: [[UInt8]] = [
            Array(Self.fullUser.utf8),
            Fixtures.envelope(Fixtures.user(id: "u1", status: "s", payload: ["a": [1, 2.5, "x"]])),
        ]
        let listSeeds: [[UInt8]] = [
            Array(Self.listBodies[0].utf8), Array(#"{"data":[],"meta":{"has_next":true,"next_cursor":"c"}}"#.utf8),
        ]
        var taken = 0
        var total = 0
        for seed in objectSeeds {
            for body in Self.mutations(of: seed) {
                total += 1
                if Self.compareObject(PubNubDataSyncUser.self, body, entry: false) { taken += 1 }
            }
        }
        for seed in listSeeds {
            for body in Self.mutations(of: seed) {
                total += 1
                if Self.compareList(PubNubDataSyncMembership.self, body, entry: false) { taken += 1 }
            }
        }
        // Both paths must have had work: some mutants still decode, most do not.
        #expect(taken > 100)
        #expect(taken < total)
    }

    static let interestingBytes: [UInt8] = Array(#""\{}[],: 0-1.eE+ntfu/"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]

    static func mutations(of seed: [UInt8]) -> [[UInt8]] {
        var bodies: [[UInt8]] = []
        for end in 0..<seed.count { bodies.append(Array(seed[..<end])) }
        for position in seed.indices {
            var deleted = seed
            deleted.remove(at: position)
            bodies.append(deleted)
            var doubled = seed
            doubled.insert(seed[position], at: position)
            bodies.append(doubled)
            for byte in interestingBytes where byte != seed[position] {
                var replaced = seed
                replaced[position] = byte
                bodies.append(replaced)
            }
        }
        var generator = SeededRandomNumberGenerator(seed: 34)
        for _ in 0..<2_000 {
            var body = seed
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let position = Int(generator.next() % UInt64(body.count))
                switch generator.next() % 3 {
                case 0: body[position] = interestingBytes[Int(generator.next() % UInt64(interestingBytes.count))]
                case 1: body.remove(at: position)
                default:
                    // A slice of the seed elsewhere: repeated members, nested copies.
                    let start = Int(generator.next() % UInt64(seed.count))
                    let length = Int(generator.next() % 24)
                    body.insert(contentsOf: seed[start..<min(seed.count, start + length)], at: position)
                }
                if body.isEmpty { break }
            }
            bodies.append(body)
        }
        return bodies
    }
}
