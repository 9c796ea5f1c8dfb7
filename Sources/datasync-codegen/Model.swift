/// What gets generated for one class: its Swift name and, per version, the merged properties
/// (own plus inherited), the payload shape, and the projections. Built from a parsed document;
/// both the source emitter and the summary read it.
struct ClassModel {
    var definition: ClassDefinition
    /// The Swift name of the class's namespace.
    var typeName: String
    /// The list call for objects of the class: `getUsers`, `getChannels`, `getEntities` or
    /// `getRelationships`.
    var listCall: String
    var versions: [VersionModel]

    var latest: VersionModel { versions[versions.count - 1] }
}

struct VersionModel {
    var number: Int
    /// Own properties for this version, then each ancestor's at its latest version; a name
    /// declared nearer wins.
    var properties: [PropertyDefinition]
    var projections: [ProjectionDefinition]
    var payload: PayloadNode

    /// Properties a tier permits, built-ins first: `full` for `filter`, `simple` or `full` for
    /// `filterFast`.
    func filterable(fast: Bool) -> [FilterableProperty] {
        var result = FilterableProperty.builtIns
        for property in properties
        where property.filtering == "full" || (fast && property.filtering == "simple") {
            result.append(FilterableProperty(name: property.name, type: property.type, definition: property))
        }
        return result
    }
}

/// A name usable in filters and sorts.
struct FilterableProperty {
    var name: String
    var type: String
    /// `nil` for the built-ins.
    var definition: PropertyDefinition?

    static let builtIns = ["id", "createdAt", "updatedAt", "status"].map {
        FilterableProperty(name: $0, type: "string", definition: nil)
    }
}

/// One member of a payload object: a declared leaf, or an object whose members are declared.
final class PayloadNode {
    let key: String
    /// The declared type when a property points here.
    var type: String?
    /// The properties that point here.
    var declaredBy: [PropertyDefinition] = []
    var children: [PayloadNode] = []
    /// Reached through an array index: kept as any JSON value.
    var opaque = false

    init(key: String) { self.key = key }

    func child(_ key: String) -> PayloadNode {
        if let found = children.first(where: { $0.key == key }) { return found }
        let node = PayloadNode(key: key)
        children.append(node)
        return node
    }
}

enum ModelBuilder {
    /// Models for every class of `document`, in the file's order.
    static func models(_ document: DefinitionDocument) throws(DefinitionError) -> [ClassModel] {
        var models: [ClassModel] = []
        var scope = NameScope()
        // Entity classes first claim their names; a relationship class named like one gets a
        // `Relationship` suffix (the two kinds have separate name spaces in DataSync).
        let ordered =
            document.classes.filter { $0.kind == .entity } + document.classes.filter { $0.kind == .relationship }
        var names: [String: String] = [:]
        for definition in ordered {
            var name = Naming.identifier(definition.name, upper: true)
            if Naming.keywords.contains(name) { name += "Class" }
            if definition.kind == .relationship, names.values.contains(name) { name += "Relationship" }
            let claimed = scope.claim(name)
            names[definition.kind.rawValue + ":" + definition.name] = claimed
        }
        for definition in document.classes {
            let ancestry = DefinitionParser.ancestry(of: definition, among: document.classes)
            let root = ancestry.last?.name
            let listCall: String
            switch (definition.kind, root) {
            case (.relationship, _): listCall = "getRelationships"
            case (.entity, "User"): listCall = "getUsers"
            case (.entity, "Channel"): listCall = "getChannels"
            default: listCall = "getEntities"
            }
            var versions: [VersionModel] = []
            for version in definition.versions {
                let (properties, projections) = merged(definition, version: version, among: document.classes)
                let payload = try payloadTree(properties, owner: definition.name)
                versions.append(
                    VersionModel(
                        number: version.version, properties: properties, projections: projections, payload: payload))
            }
            let typeName = names[definition.kind.rawValue + ":" + definition.name] ?? definition.name
            models.append(
                ClassModel(definition: definition, typeName: typeName, listCall: listCall, versions: versions))
        }
        return models
    }

    /// The version's own properties and projections, then each ancestor's at its latest version
    /// (the emulator's `ClassRegistry.properties`): a name declared nearer wins.
    static func merged(_ definition: ClassDefinition, version: VersionDefinition, among classes: [ClassDefinition])
        -> ([PropertyDefinition], [ProjectionDefinition])
    {
        var properties: [PropertyDefinition] = []
        var projections: [ProjectionDefinition] = []
        var chosen: VersionDefinition? = version
        var current: ClassDefinition? = definition
        var steps = 0
        while let candidate = current, let selected = chosen, steps < 64 {
            for property in selected.properties where !properties.contains(where: { $0.name == property.name }) {
                properties.append(property)
            }
            for projection in selected.projections where !projections.contains(where: { $0.name == projection.name }) {
                projections.append(projection)
            }
            current = candidate.parent.flatMap { DefinitionParser.lookup(candidate.kind, $0, among: classes) }
            chosen = current.flatMap { $0.version($0.latestVersion) }
            steps += 1
        }
        return (properties, projections)
    }

    /// The payload's shape from the properties under `/payload/`. A pointer through a numeric
    /// token (an array index) keeps its container as any JSON value.
    static func payloadTree(_ properties: [PropertyDefinition], owner: String) throws(DefinitionError) -> PayloadNode {
        let root = PayloadNode(key: "payload")
        root.type = "object"
        func blame(_ new: PropertyDefinition, _ old: PropertyDefinition?) -> PropertyDefinition {
            if new.declaredIn == owner, !new.source.isEmpty { return new }
            if let old, old.declaredIn == owner, !old.source.isEmpty { return old }
            return new
        }
        for property in properties {
            let path = tokens(of: property.pointer)
            guard path.first == "payload", path.count > 1 else { continue }
            var node = root
            for (index, key) in path.dropFirst().enumerated() {
                if node.opaque || node.type == "array" { break }
                if index > 0, node.type != "object", !key.isEmpty, key.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    node.opaque = true
                    node.children = []
                    break
                }
                let child = node.child(key)
                let isLast = index == path.count - 2
                if isLast {
                    if let existing = child.type, existing != property.type {
                        let other = child.declaredBy.first
                        let at = blame(property, other)
                        let against = at == property ? other : property
                        throw .invalid(
                            "'\(property.pointer)' is declared as \(at.type) here and as \(against?.type ?? existing)"
                                + " by property '\(against?.name ?? "?")'",
                            at.source + "/type")
                    }
                    if !child.children.isEmpty, property.type != "object" {
                        throw .invalid(
                            "'\(property.pointer)' has declared members, so its type must be object",
                            blame(property, nil).source + "/type")
                    }
                    child.type = property.type
                    child.declaredBy.append(property)
                } else if let existing = child.type, existing != "object", existing != "array" {
                    let other = child.declaredBy.first
                    let at = blame(property, other)
                    throw .invalid(
                        "'\(property.pointer)' goes through a \(existing) declared by property '\(other?.name ?? "?")'",
                        at.source + (at == property ? "/pointer" : "/type"))
                }
                node = child
            }
        }
        return root
    }
}
