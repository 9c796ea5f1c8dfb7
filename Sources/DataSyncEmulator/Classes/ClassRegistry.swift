/// The classes of one keyset: the Global built-ins plus the keyset's SubKey classes.
struct ClassRegistry: Sendable {
    private(set) var entityClasses: [ClassKey: ClassDefinition] = [:]
    private(set) var relationshipClasses: [ClassKey: ClassDefinition] = [:]

    init() {
        for definition in ClassDefinition.builtIns { store(definition) }
    }

    func classes(_ kind: ClassKind) -> [ClassKey: ClassDefinition] {
        kind == .entity ? entityClasses : relationshipClasses
    }

    func definition(_ kind: ClassKind, _ key: ClassKey) -> ClassDefinition? { classes(kind)[key] }

    /// The keyset's own (not built-in) classes of `kind`, every parent before its subclasses, then
    /// by name: the order a class document must list them in to be read back, which both the
    /// export and the state file rely on.
    func customClasses(_ kind: ClassKind) -> [ClassDefinition] {
        classes(kind).values.filter { !$0.isBuiltIn }
            .map { definition -> (Int, ClassDefinition) in
                var depth = 0
                var current = definition.parent
                while let parent = current, depth < 64 {
                    depth += 1
                    current = self.definition(kind, parent)?.parent
                }
                return (depth, definition)
            }
            .sorted { ($0.0, $0.1.name) < ($1.0, $1.1.name) }
            .map(\.1)
    }

    /// Resolves a name: at `level` when given, otherwise SubKey first, then Global (the order
    /// the service documents).
    func resolve(_ kind: ClassKind, name: String, level: ClassLevel?) -> ClassDefinition? {
        let table = classes(kind)
        if let level { return table[ClassKey(name: name, level: level)] }
        return table[ClassKey(name: name, level: .subKey)] ?? table[ClassKey(name: name, level: .global)]
    }

    /// Whether `key` is `ancestor` or inherits from it.
    func isKind(_ kind: ClassKind, _ key: ClassKey, of ancestor: ClassKey) -> Bool {
        var current: ClassKey? = key
        var steps = 0
        while let candidate = current, steps < 64 {
            if candidate == ancestor { return true }
            current = classes(kind)[candidate]?.parent
            steps += 1
        }
        return false
    }

    /// The topmost ancestor of `key`.
    func root(_ kind: ClassKind, of key: ClassKey) -> ClassKey {
        var current = key
        var steps = 0
        while let parent = classes(kind)[current]?.parent, steps < 64 {
            current = parent
            steps += 1
        }
        return current
    }

    /// `key` and every class that inherits from it.
    func family(_ kind: ClassKind, of key: ClassKey) -> [ClassKey] {
        classes(kind).keys.filter { isKind(kind, $0, of: key) }
    }

    /// The properties usable in filters and sorts for objects of `key` at `version`: the
    /// version's own declarations plus the parent's at its latest version (own names win).
    func properties(_ kind: ClassKind, _ key: ClassKey, version: Int?) -> [String: PropertyDefinition] {
        var result: [String: PropertyDefinition] = [:]
        var current: ClassKey? = key
        var requested = version
        var steps = 0
        while let candidate = current, let definition = classes(kind)[candidate], steps < 64 {
            let chosen = requested.flatMap(definition.version) ?? definition.version(definition.latestVersion)
            for property in chosen?.properties ?? [] where result[property.name] == nil {
                result[property.name] = property
            }
            requested = nil
            current = definition.parent
            steps += 1
        }
        return result
    }

    /// Every property name declared on any version of `key` or its ancestors: used to tell
    /// "only on an older version" from "never declared" in error messages.
    func allDeclaredNames(_ kind: ClassKind, _ key: ClassKey) -> Set<String> {
        var names: Set<String> = []
        var current: ClassKey? = key
        var steps = 0
        while let candidate = current, let definition = classes(kind)[candidate], steps < 64 {
            for version in definition.versions { names.formUnion(version.properties.map(\.name)) }
            current = definition.parent
            steps += 1
        }
        return names
    }

    /// Turns a draft into a definition at SubKey, resolving its references. `replacing` is the
    /// current definition when the draft replaces one.
    func resolveDraft(_ draft: ClassDraft, replacing: ClassDefinition?, path: String) throws(APIError)
        -> ClassDefinition
    {
        let key = ClassKey(name: draft.name, level: .subKey)
        var parent: ClassKey?
        if let reference = draft.parent {
            guard let found = resolve(draft.kind, name: reference.name, level: reference.level) else {
                throw .notFound("class definition not found: \(reference.name)", path: path + "/extends")
            }
            guard found.key != key, !isKind(draft.kind, found.key, of: key) else {
                throw .invalid("a class cannot extend itself", path: path + "/extends")
            }
            if draft.kind == .relationship, isKind(.relationship, found.key, of: ClassDefinition.membershipKey) {
                throw .invalid("Membership cannot be extended", path: path + "/extends")
            }
            parent = found.key
        }
        if let replacing, replacing.parent != parent {
            throw .invalid("a class's parent cannot change", path: path + "/extends")
        }
        func side(_ reference: ClassReference?, _ field: String) throws(APIError) -> ClassKey? {
            guard let reference else { return nil }
            guard let found = resolve(.entity, name: reference.name, level: reference.level) else {
                throw .notFound("class definition not found: \(reference.name)", path: path + "/" + field)
            }
            return found.key
        }
        return ClassDefinition(
            kind: draft.kind, name: draft.name, level: .subKey, parent: parent, ttlDays: draft.ttlDays,
            eventsEnabled: draft.eventsEnabled, versions: draft.versions, cardinality: draft.cardinality,
            entityAClass: try side(draft.entityAClass, "entityAClass"),
            entityBClass: try side(draft.entityBClass, "entityBClass"), isBuiltIn: false)
    }

    mutating func store(_ definition: ClassDefinition) {
        switch definition.kind {
        case .entity: entityClasses[definition.key] = definition
        case .relationship: relationshipClasses[definition.key] = definition
        }
    }

    mutating func remove(_ kind: ClassKind, _ key: ClassKey) {
        switch kind {
        case .entity: entityClasses[key] = nil
        case .relationship: relationshipClasses[key] = nil
        }
    }
}

extension ClassRegistry {
    /// The kind of an object of entity class `key`: a user or a channel when the class descends
    /// from the built-in `User` or `Channel`, a plain entity otherwise.
    func entityKind(_ key: ClassKey) -> ObjectKind {
        switch root(.entity, of: key) {
        case ClassDefinition.userKey: return .user
        case ClassDefinition.channelKey: return .channel
        default: return .entity
        }
    }
}
