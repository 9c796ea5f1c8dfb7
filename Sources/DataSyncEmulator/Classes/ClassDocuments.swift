import JSONCore

/// The class-definition document (`{"entityClasses":[…],"relationshipClasses":[…]}`, format in
/// `Documentation/Emulator.md`): the `--classes` template and the admin route that defines classes.
enum ClassDocuments {
    /// Parses `{"entityClasses":[…],"relationshipClasses":[…]}` and defines every class in
    /// `keyset`'s registry, in order (a parent must come before its subclasses).
    static func define(_ document: JSONValue, in registry: inout ClassRegistry) throws(EmulatorError)
        -> [ClassDefinition]
    {
        guard let top = document.objectValue else {
            throw EmulatorError(code: .invalidClasses, message: "the class document must be a JSON object")
        }
        for key in top.keys.sorted() where key != "entityClasses" && key != "relationshipClasses" {
            throw EmulatorError(code: .invalidClasses, message: "/\(key): unknown field")
        }
        var defined: [ClassDefinition] = []
        try forEachDraft(in: top, path: "", code: .invalidClasses) { (draft, path) throws(APIError) in
            if registry.definition(draft.kind, ClassKey(name: draft.name, level: .subKey)) != nil {
                throw APIError.conflict("class \(draft.name) is defined twice", path: path + "/name")
            }
            let definition = try registry.resolveDraft(draft, replacing: nil, path: path)
            registry.store(definition)
            defined.append(definition)
        }
        return defined
    }

    /// Parses each item of the `entityClasses`, then the `relationshipClasses` array of a class
    /// or seed document (`fields`, at pointer `path`) and hands it to `body` with its pointer, in
    /// order. A refusal of the item or of `body` becomes an ``EmulatorError`` with `code` that
    /// names the pointer.
    static func forEachDraft(
        in fields: JSONObject, path: String, code: EmulatorError.Code,
        _ body: (ClassDraft, _ path: String) throws(APIError) -> Void
    ) throws(EmulatorError) {
        for kind in [ClassKind.entity, .relationship] {
            let field = kind == .entity ? "entityClasses" : "relationshipClasses"
            guard let list = fields[field] else { continue }
            guard let items = list.arrayValue else {
                throw EmulatorError(code: code, message: "\(path)/\(field) must be an array")
            }
            for (index, item) in items.enumerated() {
                let itemPath = "\(path)/\(field)/\(index)"
                do throws(APIError) {
                    try body(try ClassDraft(kind: kind, json: item, path: itemPath), itemPath)
                } catch {
                    throw EmulatorError(code: code, message: "\(error.path ?? itemPath): \(error.message)")
                }
            }
        }
    }
}
