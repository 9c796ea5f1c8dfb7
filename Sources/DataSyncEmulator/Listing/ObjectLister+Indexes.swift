import FilterExpression
import JSONCore

/// Lists answered from the property indexes (`Store/PropertyIndex.swift`): candidates from
/// equality and range lookups, or a walk of the first sort field's index. The indexes only ever
/// narrow what is looked at: every candidate still goes through the same checks (expiry, kind,
/// version, the cursor, the filter evaluator) and the same order as a full scan, so the answer
/// is the scan's.
extension ObjectLister {
    /// Where a filter's candidates come from in one class.
    indirect enum IndexAccess {
        /// Entries of `index` from `lower` (inclusive) to `upper` (exclusive).
        case range(PropertyIndex, lower: PropertyIndex.Position, upper: PropertyIndex.Position)
        /// Objects found directly (an `id ==` lookup), or none (a condition nothing can match).
        case boxes([ObjectBox])
        /// Every object any operand yields (an `||` whose operands are all answerable).
        case union([IndexAccess])

        /// How many candidates it yields (an upper bound for unions).
        var estimate: Int {
            switch self {
            case .range(let index, let lower, let upper): return max(0, index.rank(upper) - index.rank(lower))
            case .boxes(let boxes): return boxes.count
            case .union(let operands): return operands.reduce(0) { $0 + $1.estimate }
            }
        }

        func collect(into result: inout [ObjectBox]) {
            switch self {
            case .range(let index, let lower, let upper): index.boxes(from: lower, to: upper, into: &result)
            case .boxes(let boxes): result += boxes
            case .union(let operands):
                // An object matching two operands is one candidate.
                var seen: Set<ObjectIdentifier> = []
                var gathered: [ObjectBox] = []
                for operand in operands { operand.collect(into: &gathered) }
                for box in gathered where seen.insert(ObjectIdentifier(box)).inserted { result.append(box) }
            }
        }
    }

    /// A page from the indexes, or nil when they cannot beat the other paths (no indexable
    /// condition, or one that matches so much that walking the order is cheaper, and a sort
    /// whose first field has no index).
    func fromIndexes(_ plan: ListPlan, keyset: Keyset, collection: ObjectCollection, now: Int64) -> [SortPosition]? {
        guard keyset.indexesEnabled else { return nil }
        let space = collection.space
        let familySize = plan.family.reduce(0) { $0 + keyset.count(space, ofClass: $1) }
        var walkIndexes: [PropertyIndex]?
        if let first = plan.sort.first, let source = Self.indexSource(of: first) {
            let found = plan.family.compactMap { keyset.propertyIndex(space, ofClass: $0, source) }
            if found.count == plan.family.count { walkIndexes = found }
        }
        var accesses: [(key: ClassKey, access: IndexAccess?)] = []
        var estimate = familySize
        if let filter = plan.filter {
            estimate = 0
            for key in plan.family {
                let access = Self.access(filter.root, keyset: keyset, space: space, classKey: key, plan: plan)
                accesses.append((key, access))
                estimate += access?.estimate ?? keyset.count(space, ofClass: key)
            }
        }
        let capacity = plan.limit + 1
        // A walk in sort order reads about `capacity / selectivity` objects; without one (a sort
        // with no index on its first field), the other paths read the whole family.
        let walkCost =
            plan.sort.isEmpty || walkIndexes != nil
            ? Double(capacity) * Double(familySize) / Double(max(estimate, 1)) : Double(familySize)
        if accesses.contains(where: { $0.access != nil }), Double(estimate) <= walkCost {
            var buckets: [[ObjectBox]] = []
            for (key, access) in accesses {
                if let access {
                    var boxes: [ObjectBox] = []
                    access.collect(into: &boxes)
                    buckets.append(boxes)
                } else {
                    buckets.append(Array(keyset.members(space, ofClass: key).values))
                }
            }
            return Self.heapPass(plan, buckets: buckets, collection: collection, now: now)
        }
        if let walkIndexes {
            return Self.walk(plan, indexes: walkIndexes, collection: collection, now: now)
        }
        return nil
    }

    /// The index a sort field's values are kept in (`id` sorts use the id order instead).
    static func indexSource(of field: SortField) -> IndexSource? {
        switch field.source {
        case .id: return nil
        case .status: return .status
        case .createdAt: return .createdAt
        case .updatedAt: return .updatedAt
        case .pointer(let tokens): return .pointer(tokens)
        }
    }

    /// The lookups that yield every object of class `classKey` that can match `node` (and maybe
    /// more), or nil when only a scan can tell.
    static func access(
        _ node: FilterNode, keyset: Keyset, space: ClassKind, classKey: ClassKey, plan: ListPlan
    ) -> IndexAccess? {
        switch node {
        case .condition(let condition):
            return access(condition, keyset: keyset, space: space, classKey: classKey, plan: plan)
        case .and(let operands):
            // The narrowest answerable operand, after intersecting ranges of one index
            // (`price >= 5 && price < 6`); the evaluator checks the others.
            var best: IndexAccess?
            var bestEstimate = Int.max
            var ranges: [ObjectIdentifier: IndexAccess] = [:]
            var others: [IndexAccess] = []
            for operand in operands {
                guard let candidate = access(operand, keyset: keyset, space: space, classKey: classKey, plan: plan)
                else { continue }
                if case .range(let index, let lower, let upper) = candidate {
                    let slot = ObjectIdentifier(index)
                    if case .range(_, let keptLower, let keptUpper)? = ranges[slot] {
                        ranges[slot] = .range(
                            index, lower: PropertyIndex.later(lower, keptLower),
                            upper: PropertyIndex.earlier(upper, keptUpper))
                    } else {
                        ranges[slot] = candidate
                    }
                } else {
                    others.append(candidate)
                }
            }
            for candidate in others + Array(ranges.values) {
                let size = candidate.estimate
                if size < bestEstimate {
                    best = candidate
                    bestEstimate = size
                }
            }
            return best
        case .or(let operands):
            guard !operands.isEmpty else { return nil }
            var parts: [IndexAccess] = []
            for operand in operands {
                guard let part = access(operand, keyset: keyset, space: space, classKey: classKey, plan: plan)
                else { return nil }
                parts.append(part)
            }
            return .union(parts)
        case .not:
            return nil
        }
    }

    /// One condition as a lookup, following the evaluator's rules (``FilterEvaluator``): values
    /// of another type never match, `== null` matches null and missing, numbers compare by value
    /// whether integer or not. Ranges are taken inclusive on `SortValue`s (numbers as `Double`,
    /// which can only widen them), so they never miss a match.
    static func access(
        _ condition: FilterCondition, keyset: Keyset, space: ClassKind, classKey: ClassKey, plan: ListPlan
    ) -> IndexAccess? {
        let source: IndexSource
        switch condition.property {
        case "id":
            guard condition.op == .equal, case .string(let id) = condition.value else { return nil }
            return .boxes(keyset.members(space, ofClass: classKey)[ExactString(id)].map { [$0] } ?? [])
        case "createdAt", "updatedAt":
            // Filters see these as timestamp strings; the indexes hold microseconds (for sorts).
            return nil
        case "status": source = .status
        default:
            guard let tokens = plan.pointers[condition.property] else { return nil }
            source = .pointer(tokens)
        }
        guard let index = keyset.propertyIndex(space, ofClass: classKey, source) else { return nil }
        let lower: SortValue
        let upper: SortValue?
        switch condition.value {
        case .null, .bool:
            // Only `==` can match (`!=` matches nearly everything: scan); ordering never does.
            guard condition.op.isEquality else { return .boxes([]) }
            guard condition.op == .equal else { return nil }
            // The null key also holds missing values and containers: the evaluator sorts them out.
            lower = SortValue(condition.value.jsonValue)
            upper = lower
        case .string(let text):
            switch condition.op {
            case .equal: (lower, upper) = (.string(text), .string(text))
            case .less, .lessOrEqual: (lower, upper) = (.string(""), .string(text))
            case .greater, .greaterOrEqual: (lower, upper) = (.string(text), nil)
            case .notEqual, .like, .slike, .ilike: return nil
            }
        case .int, .double:
            let number: Double
            switch condition.value {
            case .int(let integer): number = Double(integer)
            case .double(let double): number = double
            default: return nil
            }
            switch condition.op {
            case .equal: (lower, upper) = (.number(number), .number(number))
            case .less, .lessOrEqual: (lower, upper) = (.number(-.infinity), .number(number))
            case .greater, .greaterOrEqual: (lower, upper) = (.number(number), .number(.infinity))
            case .notEqual, .like, .slike, .ilike: return nil
            }
        }
        let start = index.position(of: lower, strictly: false)
        let end = upper.map { index.position(of: $0, strictly: true) } ?? index.end
        return .range(index, lower: start, upper: end)
    }

    /// A page in sort order by walking the first sort field's index of every class of the family
    /// from the cursor, one group of equal first values at a time (ordered among themselves by
    /// the remaining fields, then `id`), until the page is full.
    static func walk(_ plan: ListPlan, indexes: [PropertyIndex], collection: ObjectCollection, now: Int64)
        -> [SortPosition]
    {
        guard let first = plan.sort.first else { return [] }
        let descending = first.descending
        let changedAfter = plan.cursor?.startRevision
        let capacity = plan.limit + 1
        let startKey = plan.cursor?.position.values.first
        // The next entry to read in each index (nil: that index is done).
        var next: [PropertyIndex.Position?] = indexes.map { index in
            if descending {
                let after = startKey.map { index.position(of: $0, strictly: true) } ?? index.end
                return index.retreat(after)
            }
            return startKey.map { index.position(of: $0, strictly: false) } ?? index.start
        }
        var page: [SortPosition] = []
        while page.count < capacity {
            var groupKey: SortValue?
            for (number, index) in indexes.enumerated() {
                guard let position = next[number], let entry = index.entry(at: position) else { continue }
                if let current = groupKey {
                    let order = SortValue.compare(entry.key, current)
                    if descending ? order <= 0 : order >= 0 { continue }
                }
                groupKey = entry.key
            }
            guard let key = groupKey else { break }
            var group: [SortPosition] = []
            for (number, index) in indexes.enumerated() {
                while let position = next[number], let entry = index.entry(at: position),
                    SortValue.compare(entry.key, key) == 0
                {
                    if descending {
                        next[number] = index.retreat(position)
                    } else {
                        var moved = position
                        index.advance(&moved)
                        next[number] = moved
                    }
                    let box = entry.box
                    guard qualifies(box, plan: plan, collection: collection, now: now, changedAfter: changedAfter)
                    else { continue }
                    let position = SortPosition(values: plan.sort.map { $0.value(of: box) }, id: box.object.id)
                    if let cursor = plan.cursor, !cursor.position.precedes(position, fields: plan.sort) { continue }
                    if let visible = plan.visible, !visible(position.id) { continue }
                    if let filter = plan.filter, !filter.matches({ resolve($0, box, plan.pointers) }) { continue }
                    group.append(position)
                }
            }
            group.sort { $0.precedes($1, fields: plan.sort) }
            page += group
        }
        return page
    }
}
