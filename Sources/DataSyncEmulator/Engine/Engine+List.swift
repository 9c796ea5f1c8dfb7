import EmulatorHTTP
import Foundation
import JSONCore

extension Engine {
    static let defaultLimit = 20
    static let maximumLimit = 100

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

    func list(_ context: RequestContext) throws(APIError) -> ServerResponse {
        let plan = try listPlan(context)
        let keyset = context.keyset
        let space = context.collection.space
        let now = now()

        var heap: [SortPosition]
        if plan.sideA != nil || plan.sideB != nil {
            heap = bySorting(plan, keyset: keyset, collection: context.collection, now: now)
        } else if let indexed = fromIndexes(plan, keyset: keyset, collection: context.collection, now: now) {
            heap = indexed
        } else if plan.sort.isEmpty {
            heap = inIdOrder(plan, keyset: keyset, collection: context.collection, now: now)
        } else {
            heap = fromSnapshot(plan, keyset: keyset, collection: context.collection, now: now)
        }
        heap.sort { $0.precedes($1, fields: plan.sort) }
        let hasNext = heap.count > plan.limit
        let page = heap.prefix(plan.limit)
        let data = page.compactMap { keyset.object(space, $0.id)?.jsonValue }
        var meta: [String: JSONValue] = ["has_next": .bool(hasNext), "limit": .int(Int64(plan.limit))]
        var links: [String: JSONValue] = ["self": .string(context.target), "next": .null]
        if hasNext, let last = page.last {
            let cursor = ListCursor(
                fingerprint: plan.fingerprint, position: last, startRevision: plan.cursor?.startRevision ?? revision)
            let token = cursor.encode(key: cursorKey)
            meta["next_cursor"] = .string(token)
            links["next"] = .string(Self.nextLink(context, cursor: token))
        }
        return Self.body(
            ["data": .array(data), "meta": .object(meta), "links": .object(links)], status: 200,
            mediaType: context.collection.mediaType)
    }

    /// Any sort, any candidates: one pass over the candidates keeping the first `limit + 1`
    /// positions in a bounded heap (O(n log limit)).
    private func bySorting(_ plan: ListPlan, keyset: Keyset, collection: ObjectCollection, now: Int64) -> [SortPosition]
    {
        let space = collection.space
        // Candidates: through the link index when a linked id is given, else the class buckets.
        var buckets: [[ExactString: ObjectBox]] = []
        if let linked = plan.sideA ?? plan.sideB {
            let familySet = Set(plan.family)
            var bucket: [ExactString: ObjectBox] = [:]
            for id in keyset.linkedRelationshipIds(of: linked) {
                if let box = keyset.box(.relationship, id), familySet.contains(box.object.classKey) {
                    bucket[ExactString(id)] = box
                }
            }
            buckets = [bucket]
        } else {
            buckets = plan.family.map { keyset.members(space, ofClass: $0) }
        }
        return Self.heapPass(plan, buckets: buckets.map(\.values), collection: collection, now: now)
    }

    /// One pass over `buckets` keeping the first `limit + 1` positions after the cursor that
    /// qualify and match the filter, in a bounded heap (O(n log limit)).
    static func heapPass<Bucket: Sequence<ObjectBox>>(
        _ plan: ListPlan, buckets: [Bucket], collection: ObjectCollection, now: Int64
    ) -> [SortPosition] {
        // Objects whose sort position may have moved since paging started are skipped on later
        // pages, so a page sequence never returns an object twice while the collection changes.
        let idOnly = plan.sort.allSatisfy { if case .id = $0.source { return true } else { return false } }
        let changedAfter = idOnly ? nil : plan.cursor?.startRevision
        let capacity = plan.limit + 1
        var heap: [SortPosition] = []
        heap.reserveCapacity(capacity)
        var values: [SortValue] = []
        values.reserveCapacity(plan.sort.count)
        for bucket in buckets {
            for box in bucket {
                guard
                    qualifies(box, plan: plan, collection: collection, now: now, changedAfter: changedAfter)
                else { continue }
                values.removeAll(keepingCapacity: true)
                for field in plan.sort { values.append(field.value(of: box)) }
                let id = box.object.id
                if let cursor = plan.cursor,
                    !SortPosition.precedes(cursor.position.values, cursor.position.id, values, id, fields: plan.sort)
                {
                    continue
                }
                // Most objects fall behind a full page: test that before building a position or
                // running the (costlier) filter.
                if heap.count == capacity, let root = heap.first,
                    !SortPosition.precedes(values, id, root.values, root.id, fields: plan.sort)
                {
                    continue
                }
                if let visible = plan.visible, !visible(id) { continue }
                if let filter = plan.filter, !filter.matches({ resolve($0, box, plan.pointers) }) { continue }
                offer(SortPosition(values: values, id: id), to: &heap, capacity: capacity, fields: plan.sort)
            }
        }
        return heap
    }

    static let sortCacheCapacity = 8

    /// A sort over a whole family. The first list after a write makes one bounded-heap pass
    /// (O(n log limit)); a second list in the same sort with no write in between builds a sorted
    /// snapshot of the family (O(n log n)), and later ones walk it from the cursor and stop when
    /// the page is full (O(log n + page)) until an object of the family is written again.
    private func fromSnapshot(_ plan: ListPlan, keyset: Keyset, collection: ObjectCollection, now: Int64)
        -> [SortPosition]
    {
        let space = collection.space
        let family = plan.family.sorted { ($0.level.rawValue, $0.name) < ($1.level.rawValue, $1.name) }
        let stamps = family.map { keyset.stamp(space, ofClass: $0) }
        let cacheKey =
            space.rawValue + "\u{0}" + family.map { $0.level.rawValue + ":" + $0.name }.joined(separator: ",") + "\u{0}"
            + plan.sort.map { $0.name + ($0.descending ? ":desc" : "") }.joined(separator: ",")
        let positions: [SortPosition]
        let boxes: [ObjectBox]
        let cached = keyset.sortCache[cacheKey]
        if let cached, cached.stamps == stamps, let ready = cached.positions {
            positions = ready
            boxes = cached.boxes
        } else if let cached, cached.stamps == stamps {
            // Second list of an unchanged family in this sort: worth building the snapshot.
            var built: [(position: SortPosition, box: ObjectBox)] = []
            built.reserveCapacity(family.reduce(0) { $0 + keyset.count(space, ofClass: $1) })
            for key in family {
                for box in keyset.members(space, ofClass: key).values {
                    built.append((SortPosition(values: plan.sort.map { $0.value(of: box) }, id: box.object.id), box))
                }
            }
            built.sort { $0.position.precedes($1.position, fields: plan.sort) }
            positions = built.map(\.position)
            boxes = built.map(\.box)
            keyset.sortCache[cacheKey] = SortSnapshot(stamps: stamps, positions: positions, boxes: boxes)
        } else {
            // First list since a write: one bounded-heap pass, and remember the state.
            if cached == nil {
                keyset.sortCacheOrder.append(cacheKey)
                if keyset.sortCacheOrder.count > Self.sortCacheCapacity {
                    keyset.sortCache[keyset.sortCacheOrder.removeFirst()] = nil
                }
            }
            keyset.sortCache[cacheKey] = SortSnapshot(stamps: stamps, positions: nil)
            return bySorting(plan, keyset: keyset, collection: collection, now: now)
        }
        // The first position after the cursor (binary search: positions are in sort order).
        var start = 0
        if let cursor = plan.cursor {
            var low = 0
            var high = positions.count
            while low < high {
                let middle = (low + high) / 2
                if cursor.position.precedes(positions[middle], fields: plan.sort) {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            start = low
        }
        let idOnly = plan.sort.allSatisfy { if case .id = $0.source { return true } else { return false } }
        let changedAfter = idOnly ? nil : plan.cursor?.startRevision
        let capacity = plan.limit + 1
        var page: [SortPosition] = []
        var index = start
        while index < positions.count, page.count < capacity {
            let position = positions[index]
            let box = boxes[index]
            index += 1
            guard Self.qualifies(box, plan: plan, collection: collection, now: now, changedAfter: changedAfter)
            else { continue }
            if let visible = plan.visible, !visible(position.id) { continue }
            if let filter = plan.filter, !filter.matches({ Self.resolve($0, box, plan.pointers) }) { continue }
            page.append(position)
        }
        return page
    }

    /// The default order (`id` ascending) without linked-id filters: walks the family's sorted id
    /// indexes from the cursor, merging them, and stops once the page is full, so a page costs
    /// O(k log n + scanned) rather than a pass over the whole collection.
    private func inIdOrder(_ plan: ListPlan, keyset: Keyset, collection: ObjectCollection, now: Int64) -> [SortPosition]
    {
        let space = collection.space
        let orders = plan.family.compactMap { keyset.order(space, ofClass: $0) }
        var cursors = orders.map { $0.cursor(after: plan.cursor?.position.id) }
        var page: [SortPosition] = []
        let capacity = plan.limit + 1
        while page.count < capacity {
            var chosen: (index: Int, id: String)?
            for index in orders.indices {
                guard let id = orders[index].id(at: cursors[index]) else { continue }
                if let current = chosen, !SortedIds.less(id, current.id) { continue }
                chosen = (index, id)
            }
            guard let (index, id) = chosen else { break }
            orders[index].advance(&cursors[index])
            guard let box = keyset.box(space, id),
                Self.qualifies(box, plan: plan, collection: collection, now: now, changedAfter: nil)
            else { continue }
            if let visible = plan.visible, !visible(id) { continue }
            if let filter = plan.filter, !filter.matches({ Self.resolve($0, box, plan.pointers) }) { continue }
            page.append(SortPosition(values: [], id: id))
        }
        return page
    }

    static func qualifies(
        _ box: ObjectBox, plan: ListPlan, collection: ObjectCollection, now: Int64, changedAfter: UInt64?
    ) -> Bool {
        // Fields are read one by one through the box: copying a whole object costs more than
        // the checks themselves.
        guard box.object.expiresAt > now else { return false }
        if let fixedKind = collection.fixedKind, box.object.kind != fixedKind { return false }
        if let version = plan.version, box.object.classVersion != version { return false }
        if let sideA = plan.sideA, !box.object.sideA.isExactly(sideA) { return false }
        if let sideB = plan.sideB, !box.object.sideB.isExactly(sideB) { return false }
        if let changedAfter, box.object.revision > changedAfter { return false }
        return true
    }

    /// Keeps the `capacity` first positions seen in a max-heap (root = the last of them).
    static func offer(
        _ position: SortPosition, to heap: inout [SortPosition], capacity: Int, fields: [SortField]
    ) {
        func later(_ a: Int, _ b: Int) -> Bool { heap[b].precedes(heap[a], fields: fields) }
        if heap.count < capacity {
            heap.append(position)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard later(child, parent) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
            return
        }
        guard let root = heap.first, position.precedes(root, fields: fields) else { return }
        heap[0] = position
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var largest = parent
            if left < heap.count, later(left, largest) { largest = left }
            if right < heap.count, later(right, largest) { largest = right }
            if largest == parent { break }
            heap.swapAt(parent, largest)
            parent = largest
        }
    }

    /// A property value for the filter evaluator; nil when absent.
    static func resolve(_ name: String, _ box: ObjectBox, _ pointers: [String: [String]]) -> JSONValue? {
        switch name {
        case "id": return .string(box.object.id)
        case "createdAt": return .string(Timestamp.string(micros: box.object.createdAt))
        case "updatedAt": return .string(Timestamp.string(micros: box.object.updatedAt))
        case "status": return box.object.status.map(JSONValue.string)
        default: return pointers[name].flatMap { box.object.value(atPointerTokens: $0) }
        }
    }

    private static func nextLink(_ context: RequestContext, cursor: String) -> String {
        let path = context.request.rawPath
        var parts = context.request.rawQuery.split(separator: "&").filter { part in
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            return PercentDecoding.decode(name) != "cursor"
        }.map(String.init)
        parts.append("cursor=" + PercentDecoding.encode(cursor))
        return path + "?" + parts.joined(separator: "&")
    }

    // MARK: Validation

    private func listPlan(_ context: RequestContext) throws(APIError) -> ListPlan {
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
            cursor = try ListCursor.decode(text, key: cursorKey, fingerprint: fingerprint, sortCount: sort.count)
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
