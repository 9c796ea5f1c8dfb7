import EmulatorHTTP
import Foundation
import JSONCore

/// Answers a list request from a ``ListPlan``: it picks the cheapest way to the page (the
/// property indexes, the sorted id order, a sorted snapshot, or one bounded-heap pass) and
/// reads the store. Every path applies the same checks in the same order, so the answer never
/// depends on the path taken. It holds no reference to the write side: the only state it
/// changes is a keyset's cache of sorted snapshots.
struct ObjectLister {
    let planner: ListPlanner

    /// One page of `context`'s collection at `now`; a first page's cursor remembers `revision`
    /// (the feed revision paging started at).
    func list(_ context: RequestContext, now: Int64, revision: UInt64) throws(APIError) -> ServerResponse {
        let plan = try planner.plan(context)
        let keyset = context.keyset
        let space = context.collection.space

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
            let token = planner.cursors.sign(cursor)
            meta["next_cursor"] = .string(token)
            links["next"] = .string(Self.nextLink(context, cursor: token))
        }
        return DataSyncResponse.body(
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

}
