import DataSyncEmulator
import EmulatorHTTP
import FilterExpression
import Foundation
import JSONCore
import Testing

@testable import datasync_codegen

/// The generator: golden output for a sample definition, errors at the right JSON pointer (and
/// line), agreement with the emulator on what a definition file may hold.
@Suite struct CodegenTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func generate(_ text: String, isPublic: Bool = false) throws -> String {
        let results = Codegen.load([("Sample.datasync.json", Array(text.utf8))])
        let models = try results[0].models.get()
        return Codegen.source(models, path: results[0].path, isPublic: isPublic)
    }

    static func error(_ text: String) -> DefinitionError? {
        let results = Codegen.load([("Sample.datasync.json", Array(text.utf8))])
        if case .failure(let error) = results[0].models { return error }
        return nil
    }

    // MARK: Golden output

    /// `Golden/Catalog.datasync.swift.golden` is the exact output for `Golden/Catalog.datasync.json`;
    /// `CODEGEN_UPDATE_GOLDEN=1 swift test --filter CodegenTests` rewrites it after a deliberate change.
    @Test func goldenOutput() throws {
        let input = Self.golden.appendingPathComponent("Catalog.datasync.json")
        let expectedURL = Self.golden.appendingPathComponent("Catalog.datasync.swift.golden")
        let results = Codegen.load([(input.path, [UInt8](try Data(contentsOf: input)))])
        let source = Codegen.source(try results[0].models.get(), path: input.path, isPublic: false)
        if ProcessInfo.processInfo.environment["CODEGEN_UPDATE_GOLDEN"] == "1" {
            try Data(source.utf8).write(to: expectedURL)
        }
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        #expect(source == expected, "the generated source differs from the golden file")
        // The file's directory never reaches the output: builds in two checkouts agree.
        #expect(!source.contains(Self.golden.path))
        #expect(source.contains("from Catalog.datasync.json."))
    }

    @Test func outputIsDeterministic() throws {
        let text = try String(
            contentsOf: Self.golden.appendingPathComponent("Catalog.datasync.json"), encoding: .utf8)
        let first = try Self.generate(text)
        for _ in 0..<5 { #expect(try Self.generate(text) == first) }
    }

    @Test func publicAccessMarksEveryDeclaration() throws {
        let source = try Self.generate(Self.minimal, isPublic: true)
        #expect(source.contains("public import FilterExpression"))
        #expect(source.contains("public enum Widget {"))
        #expect(source.contains("public struct Payload: JSONCore.JSONCodable, Swift.Hashable {"))
        #expect(source.contains("public static var size: FilterExpression.TypedFilterProperty<Widget.V1"))
        #expect(source.contains("public init(size: Swift.Int? = nil) {"))
    }

    static let minimal = """
        {"entityClasses": [{"name": "Widget", "versions": [{"version": 1, "properties": [
          {"name": "size", "pointer": "/payload/size", "type": "integer", "filtering": "simple"}]}]}]}
        """

    // MARK: Tiers

    @Test func tiersDecideWhichNamespacesHoldAProperty() throws {
        let text = """
            {"entityClasses": [{"name": "Item", "versions": [{"version": 1, "properties": [
              {"name": "a", "pointer": "/payload/a", "type": "string", "filtering": "full"},
              {"name": "b", "pointer": "/payload/b", "type": "string", "filtering": "simple"},
              {"name": "c", "pointer": "/payload/c", "type": "string", "filtering": "none"},
              {"name": "d", "pointer": "/payload/d", "type": "string"}]}]}]}
            """
        let version = try ModelBuilder.models(DefinitionParser.parse(Array(text.utf8)))[0].latest
        let builtIns = ["id", "createdAt", "updatedAt", "status"]
        #expect(version.filterable(fast: false).map(\.name) == builtIns + ["a"])
        #expect(version.filterable(fast: true).map(\.name) == builtIns + ["a", "b"])
        let source = try Self.generate(text)
        #expect(source.contains("var c: Swift.String?"))  // in the payload all the same
        #expect(!source.contains("static var c:"))
        #expect(!source.contains("static var d:"))
    }

    @Test func subclassesInheritTheParentsLatestVersion() throws {
        let text = """
            {"entityClasses": [
              {"name": "Base", "versions": [
                {"version": 1, "properties": [{"name": "old", "pointer": "/payload/old", "type": "string", "filtering": "full"}]},
                {"version": 2, "properties": [{"name": "new", "pointer": "/payload/new", "type": "string", "filtering": "full"}],
                 "projections": [{"name": "p", "pointers": ["/payload/new"]}]}]},
              {"name": "Child", "extends": "Base", "versions": [{"version": 1, "properties": [
                {"name": "own", "pointer": "/payload/own", "type": "integer", "filtering": "simple"}]}]}]}
            """
        let models = try ModelBuilder.models(DefinitionParser.parse(Array(text.utf8)))
        let child = try #require(models.first { $0.definition.name == "Child" })
        #expect(child.latest.properties.map(\.name) == ["own", "new"])
        #expect(child.latest.projections.map(\.name) == ["p"])
        #expect(child.listCall == "getEntities")
        let employee = try ModelBuilder.models(
            DefinitionParser.parse(
                Array(#"{"entityClasses":[{"name":"Staff","extends":"User","versions":[{"version":1}]}]}"#.utf8)))[0]
        #expect(employee.listCall == "getUsers")
        #expect(employee.latest.properties.map(\.name) == ["name", "type"])
    }

    @Test func namesThatAreNotIdentifiersAreMadeOnes() throws {
        let text = """
            {"entityClasses": [{"name": "thing", "versions": [{"version": 1, "properties": [
              {"name": "default", "pointer": "/payload/default", "type": "string", "filtering": "full"},
              {"name": "self", "pointer": "/payload/first name", "type": "string", "filtering": "full"},
              {"name": "x", "pointer": "/payload/a~1b/0/c", "type": "number"}]}]}]}
            """
        let source = try Self.generate(text)
        #expect(source.contains("enum Thing {"))
        #expect(source.contains("static let className = \"thing\""))
        #expect(source.contains("var `default`: Swift.String?"))
        #expect(source.contains("case firstName = \"first name\""))
        #expect(source.contains("static var self_: FilterExpression.TypedFilterProperty"))
        // `/payload/a~1b/0/c` goes through an array index: `a/b` is kept as any JSON value.
        #expect(source.contains("var aB: JSONCore.JSONValue?"))
    }

    // MARK: Errors

    /// Each broken document, the pointer the error names, and the line it is on.
    static let brokenDocuments: [(String, String, Int)] = [
        ("[]", "", 1),
        (#"{"entityClasses": {}}"#, "/entityClasses", 1),
        (#"{"classes": []}"#, "/classes", 1),
        (
            """
            {"entityClasses": [
              {"name": "Product", "versions": [
                {"version": 1, "properties": [
                  {"name": "price", "pointer": "/payload/price", "type": "number", "filtering": "fast"}]}]}]}
            """, "/entityClasses/0/versions/0/properties/0/filtering", 4
        ),
        (
            """
            {"entityClasses": [{"name": "P", "versions": [{"version": 1, "properties": [
              {"name": "price", "pointer": "/price", "type": "number"}]}]}]}
            """, "/entityClasses/0/versions/0/properties/0/pointer", 2
        ),
        (
            """
            {"entityClasses": [{"name": "P", "versions": [{"version": 1, "properties": [
              {"pointer": "/payload/price", "type": "number"}]}]}]}
            """, "/entityClasses/0/versions/0/properties/0/name", 2
        ),
        (
            """
            {"entityClasses": [{"name": "P", "versions": [{"version": 1, "properties": [
              {"name": "id", "pointer": "/payload/id", "type": "string"}]}]}]}
            """, "/entityClasses/0/versions/0/properties/0/name", 2
        ),
        (
            """
            {"entityClasses": [{"name": "P",
              "versions": [{"version": 1}, {"version": 1}]}]}
            """, "/entityClasses/0/versions/1/version", 2
        ),
        (#"{"entityClasses": [{"name": "P", "versions": []}]}"#, "/entityClasses/0/versions", 1),
        (#"{"entityClasses": [{"name": "1P", "versions": [{"version": 1}]}]}"#, "/entityClasses/0/name", 1),
        (
            #"{"entityClasses": [{"name": "P", "extends": "Nope", "versions": [{"version": 1}]}]}"#,
            "/entityClasses/0/extends", 1
        ),
        (
            """
            {"entityClasses": [{"name": "P", "versions": [{"version": 1}]},
              {"name": "P", "versions": [{"version": 1}]}]}
            """, "/entityClasses/1/name", 2
        ),
        (
            #"{"relationshipClasses": [{"name": "R", "extends": "Membership", "versions": [{"version": 1}]}]}"#,
            "/relationshipClasses/0/extends", 1
        ),
        (
            #"{"relationshipClasses": [{"name": "R", "cardinality": "some", "versions": [{"version": 1}]}]}"#,
            "/relationshipClasses/0/cardinality", 1
        ),
        (
            #"{"entityClasses": [{"name": "P", "ttlDays": 0, "versions": [{"version": 1}]}]}"#,
            "/entityClasses/0/ttlDays", 1
        ),
        (
            #"{"entityClasses": [{"name": "P", "colour": "red", "versions": [{"version": 1}]}]}"#,
            "/entityClasses/0/colour", 1
        ),
    ]

    @Test func errorsNameTheOffendingValue() {
        for (text, pointer, line) in Self.brokenDocuments {
            let error = Self.error(text)
            #expect(error?.pointer == pointer, "\(text)")
            if let error {
                let result = FileResult(path: "Sample.datasync.json", bytes: Array(text.utf8), models: .failure(error))
                let diagnostic = result.diagnostic(error)
                #expect(diagnostic.hasPrefix("Sample.datasync.json:\(line):"), "\(diagnostic)")
                #expect(diagnostic.contains(": error: \(pointer.isEmpty ? "/" : pointer): "), "\(diagnostic)")
            }
        }
    }

    /// Errors only the generator can find: one payload member declared with two shapes.
    @Test func conflictingPayloadShapesAreErrors() {
        let twoTypes = """
            {"entityClasses": [{"name": "P", "versions": [{"version": 1, "properties": [
              {"name": "a", "pointer": "/payload/a", "type": "string"},
              {"name": "b", "pointer": "/payload/a", "type": "number"}]}]}]}
            """
        #expect(Self.error(twoTypes)?.pointer == "/entityClasses/0/versions/0/properties/1/type")
        let leafWithMembers = """
            {"entityClasses": [{"name": "P", "versions": [{"version": 1, "properties": [
              {"name": "a", "pointer": "/payload/a", "type": "string"},
              {"name": "b", "pointer": "/payload/a/b", "type": "number"}]}]}]}
            """
        #expect(Self.error(leafWithMembers)?.pointer == "/entityClasses/0/versions/0/properties/1/pointer")
        let membersThenLeaf = """
            {"entityClasses": [{"name": "P", "versions": [{"version": 1, "properties": [
              {"name": "b", "pointer": "/payload/a/b", "type": "number"},
              {"name": "a", "pointer": "/payload/a", "type": "string"}]}]}]}
            """
        #expect(Self.error(membersThenLeaf)?.pointer == "/entityClasses/0/versions/0/properties/1/type")
    }

    @Test func aSwiftNameUsedInTwoFilesIsAnError() {
        let results = Codegen.load([
            ("A.datasync.json", Array(Self.minimal.utf8)), ("B.datasync.json", Array(Self.minimal.utf8)),
        ])
        guard case .success = results[0].models, case .failure(let error) = results[1].models else {
            Issue.record("expected the second file to fail")
            return
        }
        #expect(error.pointer == "/entityClasses/0/name")
        #expect(error.message.contains("A.datasync.json"))
    }

    @Test func relationshipNamedLikeAnEntityGetsASuffix() throws {
        let text = """
            {"entityClasses": [{"name": "Link", "versions": [{"version": 1}]}],
             "relationshipClasses": [{"name": "Link", "versions": [{"version": 1}]}]}
            """
        let source = try Self.generate(text)
        #expect(source.contains("enum Link {"))
        #expect(source.contains("enum LinkRelationship {"))
    }

    @Test func locatorFindsValuesAndFallsBackToTheNearestParent() {
        let text = "{\n  \"a\": [1,\n    {\"b\\u0022\": true}]\n}"
        let locator = JSONLocator(bytes: Array(text.utf8))
        #expect(locator.location(of: "/a") == (2, 8))
        #expect(locator.location(of: "/a/1/b\"") == (3, 17))
        #expect(locator.location(of: "/a/1/missing") == (3, 5))
        #expect(locator.location(of: "") == (1, 1))
    }

    // MARK: The endpoint shape

    /// What the class endpoints answer (built-ins included) reads as the same classes.
    @Test func classEndpointAnswersAreAccepted() async throws {
        let document = try JSONValue(
            parsing: try Data(contentsOf: Self.golden.appendingPathComponent("Catalog.datasync.json")))
        let emulator = try Emulator(configuration: EmulatorConfiguration(classes: document))
        var names: [String] = []
        for collection in ["entity-classes", "relationship-classes"] {
            let response = await emulator.respond(
                to: ServerRequest(method: "GET", target: "/v1/datasync/subkeys/demo/\(collection)"))
            #expect(response.status == 200)
            let parsed = try DefinitionParser.parse(response.body)
            names += parsed.classes.map(\.name)
            let original = try DefinitionParser.parse(document)
            for definition in parsed.classes {
                let source = try #require(original.classes.first { $0.name == definition.name })
                #expect(definition.versions.map(\.version) == source.versions.map(\.version))
                #expect(
                    definition.versions.flatMap(\.properties).map(\.name)
                        == source.versions.flatMap(\.properties).map(\.name))
            }
        }
        #expect(names.sorted() == ["Bought", "Employee", "Product"])
        let one = #"{"data": {"name": "Solo", "versions": [{"version": 1}]}}"#
        #expect(try DefinitionParser.parse(Array(one.utf8)).classes.map(\.name) == ["Solo"])
    }

    // MARK: Agreement with the emulator

    /// Every broken document above is refused by the emulator at the same pointer, and the golden
    /// sample is accepted by both.
    @Test func theEmulatorAgrees() throws {
        for (text, pointer, _) in Self.brokenDocuments {
            let json = try JSONValue(parsing: text)
            do {
                _ = try Emulator(configuration: EmulatorConfiguration(classes: json))
                Issue.record("the emulator accepted \(text)")
            } catch {
                // The emulator's message is `<pointer>: <reason>` (or `<pointer> must be …`).
                let expected = pointer.isEmpty ? "the class document must be a JSON object" : pointer
                let reported = error.message.prefix { $0 != ":" && $0 != " " }
                #expect(
                    reported == expected || (pointer.isEmpty && error.message == expected),
                    "emulator: \(error.message); generator: \(pointer)")
            }
        }
        let sample = try JSONValue(
            parsing: try Data(contentsOf: Self.golden.appendingPathComponent("Catalog.datasync.json")))
        _ = try Emulator(configuration: EmulatorConfiguration(classes: sample))
        _ = try DefinitionParser.parse(sample)
    }

    /// The generated schema is what the emulator validates filters with: a `simple` property in
    /// `filter` fails both.
    @Test func generatedSchemaMatchesTheDefinition() throws {
        let text = try String(
            contentsOf: Self.golden.appendingPathComponent("Catalog.datasync.json"), encoding: .utf8)
        let product = try ModelBuilder.models(DefinitionParser.parse(Array(text.utf8)))[0]
        var schema = FilterSchema(className: "Product")
        for version in product.versions {
            schema.addVersion(version.number)
            for property in version.properties {
                schema.declare(
                    property.name, mode: FilteringMode(rawValue: property.filtering), version: version.number)
            }
        }
        #expect(FilterValidator(schema: schema).validate("sku == \"x\"", tier: .filterFast).isEmpty)
        #expect(!FilterValidator(schema: schema).validate("sku == \"x\"", tier: .filter).isEmpty)
        #expect(!FilterValidator(schema: schema).validate("notes == \"x\"", tier: .filterFast).isEmpty)
    }
}
