import DataSyncEmulator
import Foundation
import JSONCore
import Testing

@testable import datasync_codegen

/// The emulator (`--classes`) and the generator read class documents through one format parser
/// but walk the document and resolve references each on its own: every document here, valid or
/// not, must get the same answer from both, refused at the same pointer with the same reason.
@Suite struct FormatAgreementTests {
    /// One entity class with the given fields spliced in (`name` P, one version) unless they name
    /// their own.
    static func entity(_ fields: String) -> String {
        #"{"entityClasses": [{"name": "P", "versions": [{"version": 1}]\#(fields)}]}"#
    }

    static func property(_ fields: String) -> String {
        #"{"entityClasses": [{"name": "P", "versions": [{"version": 1, "properties": [{\#(fields)}]}]}]}"#
    }

    /// Documents both must accept.
    static let valid: [String] = [
        "{}",
        #"{"entityClasses": [], "relationshipClasses": []}"#,
        entity(""),
        entity(#", "level": "SubKey", "ttlDays": null, "eventsEnabled": true, "extends": null"#),
        entity(#", "ttlDays": 36500"#),
        #"""
        {"entityClasses": [{"name": "_P9", "ttlDays": 1, "versions": [
          {"version": 2, "properties": [
            {"name": "status_copy", "pointer": "/status", "type": "string", "filtering": null},
            {"name": "price", "pointer": "/payload/price", "type": "number", "filtering": "full"},
            {"name": "tags", "pointer": "/payload/a/tags", "type": "array", "filtering": "simple"}],
           "projections": [{"name": "card", "pointers": ["/payload/price"]}]},
          {"version": 1, "properties": [{"name": "on", "pointer": "/payload/on", "type": "boolean"}]}]}]}
        """#,
        #"""
        {"entityClasses": [
          {"name": "Base", "versions": [{"version": 1}]},
          {"name": "Child", "extends": {"name": "Base", "level": "SubKey"}, "versions": [{"version": 1}]},
          {"name": "Grandchild", "extends": "Child", "versions": [{"version": 1}]}]}
        """#,
        #"""
        {"entityClasses": [{"name": "Product", "versions": [{"version": 1}]}],
         "relationshipClasses": [
          {"name": "Bought", "cardinality": "one-to-many", "entityAClass": {"name": "User", "level": "Global"},
           "entityBClass": "Product", "versions": [{"version": 1}]},
          {"name": "Returned", "extends": "Bought", "cardinality": null, "versions": [{"version": 1}]}]}
        """#,
    ]

    /// Documents both must refuse, each breaking one rule.
    static let invalid: [String] = [
        "[]", "3",
        #"{"entityClasses": {}}"#, #"{"relationshipClasses": "x"}"#, #"{"classes": []}"#,
        #"{"entityClasses": [1]}"#,
        #"{"entityClasses": [{"versions": [{"version": 1}]}]}"#,
        #"{"entityClasses": [{"name": 7, "versions": [{"version": 1}]}]}"#,
        #"{"entityClasses": [{"name": "", "versions": [{"version": 1}]}]}"#,
        #"{"entityClasses": [{"name": "Pé", "versions": [{"version": 1}]}]}"#,
        #"{"entityClasses": [{"name": "a-b", "versions": [{"version": 1}]}]}"#,
        #"{"entityClasses": [{"name": "\#(String(repeating: "n", count: 101))", "versions": [{"version": 1}]}]}"#,
        #"{"entityClasses": [{"name": "P"}]}"#,
        #"{"entityClasses": [{"name": "P", "versions": {}}]}"#,
        #"{"entityClasses": [{"name": "P", "versions": [1]}]}"#,
        #"{"entityClasses": [{"name": "P", "versions": [{"version": 0}]}]}"#,
        #"{"entityClasses": [{"name": "P", "versions": [{"version": "1"}]}]}"#,
        #"{"entityClasses": [{"name": "P", "versions": [{"version": 1, "colour": 1}]}]}"#,
        entity(#", "cardinality": "one-to-one""#),
        entity(#", "a/b~c": 1"#),
        entity(#", "level": "Global""#),
        entity(#", "level": 1"#),
        entity(#", "extends": 5"#),
        entity(#", "extends": {"level": "SubKey"}"#),
        entity(#", "extends": {"name": "User", "level": "Account"}"#),
        entity(#", "extends": "Membership""#),
        entity(#", "ttlDays": 0"#),
        entity(#", "ttlDays": 36501"#),
        entity(#", "ttlDays": "3""#),
        entity(#", "ttlDays": 1.5"#),
        entity(#", "eventsEnabled": "yes""#),
        #"{"entityClasses": [{"name": "P", "versions": [{"version": 1, "properties": [1]}]}]}"#,
        property(#""name": "a", "pointer": "/payload/a", "type": "string", "index": true"#),
        property(#""pointer": "/payload/a", "type": "string""#),
        property(#""name": "createdAt", "pointer": "/payload/a", "type": "string""#),
        property(#""name": "9a", "pointer": "/payload/a", "type": "string""#),
        property(#""name": "a", "type": "string""#),
        property(#""name": "a", "pointer": "/payload/", "type": "string""#),
        property(#""name": "a", "pointer": "payload/a", "type": "string""#),
        property(#""name": "a", "pointer": "/payload/a""#),
        property(#""name": "a", "pointer": "/payload/a", "type": "date""#),
        property(#""name": "a", "pointer": "/payload/a", "type": "string", "filtering": 3"#),
        property(#""name": "a", "pointer": "/payload/a", "type": "string", "filtering": "fast""#),
        #"""
        {"entityClasses": [{"name": "P", "versions": [{"version": 1, "properties": [
          {"name": "a", "pointer": "/payload/a", "type": "string"},
          {"name": "a", "pointer": "/payload/b", "type": "string"}]}]}]}
        """#,
        #"{"entityClasses": [{"name": "P", "versions": [{"version": 1, "projections": [{"pointers": []}]}]}]}"#,
        #"{"entityClasses": [{"name": "P", "versions": [{"version": 1, "projections": [{"name": ""}]}]}]}"#,
        #"{"entityClasses": [{"name": "P", "versions": [{"version": 1, "projections": [{"name": "c"}]}]}]}"#,
        #"{"relationshipClasses": [{"name": "R", "cardinality": 5, "versions": [{"version": 1}]}]}"#,
        #"{"relationshipClasses": [{"name": "R", "entityAClass": [], "versions": [{"version": 1}]}]}"#,
        #"{"relationshipClasses": [{"name": "R", "entityAClass": "Nope", "versions": [{"version": 1}]}]}"#,
        #"{"relationshipClasses": [{"name": "R", "entityBClass": "Membership", "versions": [{"version": 1}]}]}"#,
        #"{"relationshipClasses": [{"name": "R", "extends": "User", "versions": [{"version": 1}]}]}"#,
        #"{"relationshipClasses": [{"name": "R", "ttlDays": -1, "versions": [{"version": 1}]}]}"#,
        #"""
        {"entityClasses": [{"name": "Child", "extends": "Base", "versions": [{"version": 1}]},
          {"name": "Base", "versions": [{"version": 1}]}]}
        """#,
    ]

    /// What each side said about one document: nil when it accepted it, else the pointer and the
    /// reason (the emulator's `'<field>' is required` and the generator's `is required` read as
    /// one reason).
    static func emulatorVerdict(_ json: JSONValue) -> (pointer: String, reason: String)? {
        do {
            _ = try Emulator(configuration: EmulatorConfiguration(classes: json))
            return nil
        } catch {
            // `<pointer>: <reason>`, `<pointer> must be an array`, or the whole-document message.
            let message = error.message
            if message.hasPrefix("/"), let colon = message.range(of: ": ") {
                let pointer = String(message[..<colon.lowerBound])
                var reason = String(message[colon.upperBound...])
                if reason.hasPrefix("'"), reason.hasSuffix("' is required") { reason = "is required" }
                return (pointer, reason)
            }
            if message.hasPrefix("/"), let space = message.firstIndex(of: " ") {
                return (String(message[..<space]), String(message[message.index(after: space)...]))
            }
            return ("", message)
        }
    }

    static func generatorVerdict(_ json: JSONValue) -> (pointer: String, reason: String)? {
        do {
            _ = try DefinitionParser.parse(json)
            return nil
        } catch {
            return (error.pointer, error.message)
        }
    }

    @Test(arguments: valid) func bothAccept(_ text: String) throws {
        let json = try JSONValue(parsing: text)
        let emulator = Self.emulatorVerdict(json)
        let generator = Self.generatorVerdict(json)
        #expect(emulator == nil, "the emulator refused it: \(String(describing: emulator))")
        #expect(generator == nil, "the generator refused it: \(String(describing: generator))")
    }

    @Test(arguments: invalid) func bothRefuseAtTheSamePointer(_ text: String) throws {
        let json = try JSONValue(parsing: text)
        let emulator = try #require(Self.emulatorVerdict(json), "the emulator accepted it")
        let generator = try #require(Self.generatorVerdict(json), "the generator accepted it")
        #expect(emulator.pointer == generator.pointer)
        // Outside the shared per-class parser each side words a few refusals itself (the
        // emulator's `must be an array` after the pointer, its `unknown field` without the name);
        // inside it the reasons are the same text.
        if emulator.pointer.contains("Classes/") {
            #expect(emulator.reason == generator.reason)
        }
    }
}
