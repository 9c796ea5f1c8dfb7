import Foundation
import JSONCore

/// One list request, validated.
struct ListPlan {
    var classKey: ClassKey
    var family: [ClassKey]
    var version: Int?
    var sideA: String?
    var sideB: String?
    var filter: CompiledFilter?
    var sort: [SortField]
    var limit: Int
    var cursor: ListCursor?
    var fingerprint: String
    var pointers: [String: [String]]
    /// The ids the requester may see (access control's scope); nil: every object. Checked
    /// with the filter, before a row can take a place on the page, so hidden objects never
    /// shape a page, `has_next` or a cursor.
    var visible: ((String) -> Bool)? = nil
}

/// Turns a list request's query into a ``ListPlan``: it reads the keyset's classes and the
/// cursor key, and nothing it does can change stored state.
struct ListPlanner {
    static let defaultLimit = 20
    static let maximumLimit = 100

    /// Signs and checks list cursors.
    let cursors: CursorSigner
    /// The most conditions a `filter_fast` may hold.
    let filterFastConditionLimit: Int

    /// Validates a list request against its keyset's classes: the class and version, the linked
    /// ids, the filter and sort (against the class's declared properties), the limit and the
    /// cursor (which must have been signed for this very query).
    func plan(_ context: RequestContext) throws(APIError) -> ListPlan {
        let collection = context.collection
        let registry = context.keyset.registry
        let space = collection.space
        let definition: ClassDefinition
        let versionParameter: String
        var sideA: String?
        var sideB: String?
        switch collection.space {
        case .entity:
            versionParameter = "entity_class_version"
            let level = try Self.queryLevel(context, "entity_class_level")
            if let name = try context.queryValue("entity_class") {
                guard let found = registry.resolve(.entity, name: name, level: level) else {
                    throw .notFound("class definition not found: \(name)", path: "entity_class")
                }
                if let root = collection.familyRoot, !registry.isKind(.entity, found.key, of: root) {
                    throw APIError(
                        status: 400, code: .notSubclass, message: "\(name) is not \(root.name) or a subclass of it",
                        path: "entity_class")
                }
                definition = found
            } else if let root = collection.familyRoot, let found = registry.definition(.entity, root) {
                definition = found
            } else {
                throw .missing("entity_class")
            }
        case .relationship:
            versionParameter = "relationship_class_version"
            if let root = collection.familyRoot {
                guard let found = registry.definition(.relationship, root) else { throw .notFound("no \(root.name)") }
                definition = found
                sideA = try context.queryValue("channel_id")
                sideB = try context.queryValue("user_id")
            } else {
                guard let name = try context.queryValue("relationship_class") else {
                    throw .missing("relationship_class")
                }
                guard let found = registry.resolve(.relationship, name: name, level: nil) else {
                    throw .notFound("class definition not found: \(name)", path: "relationship_class")
                }
                if registry.isKind(.relationship, found.key, of: ClassDefinition.membershipKey) {
                    throw APIError(
                        status: 400, code: .notSubclass, message: "memberships are listed through /memberships",
                        path: "relationship_class")
                }
                definition = found
                sideA = try context.queryValue("entity_a_id")
                sideB = try context.queryValue("entity_b_id")
            }
        }
        var version: Int?
        if let text = try context.queryValue(versionParameter) {
            guard let number = Int(text), number >= 1 else {
                throw .invalid("\(versionParameter) must be a positive integer", path: versionParameter)
            }
            guard definition.version(number) != nil else {
                throw .invalid("class \(definition.name) has no version \(number)", path: versionParameter)
            }
            version = number
        }
        var limit = Self.defaultLimit
        if let text = try context.queryValue("limit") {
            guard let number = Int(text), (1...Self.maximumLimit).contains(number) else {
                throw .invalid("limit must be an integer from 1 to \(Self.maximumLimit)", path: "limit")
            }
            limit = number
        }

        // Schema for filters and sorts.
        let properties = registry.properties(space, definition.key, version: version)
        var modes: [String: FilterMode] = [:]
        var pointers: [String: [String]] = [:]
        for property in properties.values {
            modes[property.name] = property.filtering
            pointers[property.name] = PointerLookup.tokens(property.pointer)
        }
        for name in ListSchema.builtIns { modes[name] = .full }
        let schema = ListSchema(
            modes: modes, otherVersionNames: registry.allDeclaredNames(space, definition.key).subtracting(modes.keys),
            versionGiven: version != nil)

        let fastText = try context.queryValue("filter_fast")
        let fullText = try context.queryValue("filter")
        if fastText != nil, fullText != nil {
            throw .invalid("send at most one of filter_fast and filter", path: "filter")
        }
        var tier: FilterParameter?
        var filter: CompiledFilter?
        if let fastText {
            tier = .fast(conditionLimit: filterFastConditionLimit)
            filter = try FilterCompiler.compile(
                fastText, tier: .fast(conditionLimit: filterFastConditionLimit), schema: schema)
        } else if let fullText {
            tier = .full
            filter = try FilterCompiler.compile(fullText, tier: .full, schema: schema)
        }
        let sortText = try context.queryValue("sort")
        let sort = try Self.parseSort(sortText, schema: schema, tier: tier, pointers: pointers)

        let fingerprintSource: [String] = [
            context.keyset.subscribeKey, collection.name, definition.name, definition.level.rawValue,
            version.map(String.init) ?? "", sideA ?? "\u{1}", sideB ?? "\u{1}", tier?.parameter ?? "",
            fastText ?? fullText ?? "", sort.map { $0.name + ($0.descending ? ":desc" : "") }.joined(separator: ","),
        ]
        let digest = SHA256.hash(Array(fingerprintSource.joined(separator: "\u{0}").utf8))
        let fingerprint = Base64URL.encode(Array(digest.prefix(12)))
        var cursor: ListCursor?
        if let text = try context.queryValue("cursor") {
            cursor = try cursors.verify(text, fingerprint: fingerprint, sortCount: sort.count)
        }
        return ListPlan(
            classKey: definition.key, family: registry.family(space, of: definition.key), version: version,
            sideA: sideA, sideB: sideB, filter: filter, sort: sort, limit: limit, cursor: cursor,
            fingerprint: fingerprint, pointers: pointers, visible: context.scope?.makeRowTest())
    }

    private static func queryLevel(_ context: RequestContext, _ name: String) throws(APIError) -> ClassLevel? {
        guard let text = try context.queryValue(name) else { return nil }
        let level = ClassLevel(rawValue: text)
        guard level == .global || level == .subKey else {
            throw .invalid("\(name) must be Global or SubKey", path: name)
        }
        return level
    }

    /// `name,price:desc`: comma-separated properties, each optionally `:desc` (or `:asc`). A
    /// leading `-`/`+` is part of the name, so `-price` is an unknown property.
    private static func parseSort(
        _ text: String?, schema: ListSchema, tier: FilterParameter?, pointers: [String: [String]]
    ) throws(APIError) -> [SortField] {
        guard let text else { return [] }
        var fields: [SortField] = []
        for rawItem in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = rawItem.trimmingCharacters(in: .whitespaces)
            do throws(APIError) {
                fields.append(try parseSortItem(item, schema: schema, tier: tier, pointers: pointers, fields: fields))
            } catch {
                // `sort=+id` or `sort=name+desc`, written by hand: say how spaces are sent.
                var error = error
                if item.contains("+") { error.message += APIError.plusHint }
                throw error
            }
        }
        return fields
    }

    /// One entry of a sort list: `name`, `name:desc` or `name:asc`.
    private static func parseSortItem(
        _ item: String, schema: ListSchema, tier: FilterParameter?, pointers: [String: [String]], fields: [SortField]
    ) throws(APIError) -> SortField {
        guard !item.isEmpty else { throw .invalid("an empty sort entry", path: "sort") }
        var name = item
        var descending = false
        if let colon = item.lastIndex(of: ":") {
            let direction = item[item.index(after: colon)...]
            name = String(item[..<colon])
            switch direction {
            case "desc": descending = true
            case "asc": descending = false
            default: throw .invalid("a sort direction is ':desc' or ':asc', not ':\(direction)'", path: "sort")
            }
        }
        guard let mode = schema.modes[name], mode != .none else {
            throw schema.unusable(name, parameter: "sort", tier: tier)
        }
        if case .full? = tier, mode != .full { throw schema.unusable(name, parameter: "sort", tier: tier) }
        guard !fields.contains(where: { $0.name == name }) else {
            throw .invalid("'\(name)' appears twice in sort", path: "sort")
        }
        let source: SortField.Source
        switch name {
        case "id": source = .id
        case "createdAt": source = .createdAt
        case "updatedAt": source = .updatedAt
        case "status": source = .status
        default: source = .pointer(pointers[name] ?? [])
        }
        return SortField(name: name, descending: descending, source: source)
    }
}
