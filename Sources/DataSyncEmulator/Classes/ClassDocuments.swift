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
        for kind in [ClassKind.entity, .relationship] {
            let field = kind == .entity ? "entityClasses" : "relationshipClasses"
            guard let list = top[field] else { continue }
            guard let items = list.arrayValue else {
                throw EmulatorError(code: .invalidClasses, message: "/\(field) must be an array")
            }
            for (index, item) in items.enumerated() {
                let path = "/\(field)/\(index)"
                do throws(APIError) {
                    let draft = try ClassDraft(kind: kind, json: item, path: path)
                    if registry.definition(kind, ClassKey(name: draft.name, level: .subKey)) != nil {
                        throw APIError.conflict("class \(draft.name) is defined twice", path: path + "/name")
                    }
                    let definition = try registry.resolveDraft(draft, replacing: nil, path: path)
                    registry.store(definition)
                    defined.append(definition)
                } catch {
                    throw EmulatorError(code: .invalidClasses, message: "\(error.path ?? path): \(error.message)")
                }
            }
        }
        return defined
    }
}
