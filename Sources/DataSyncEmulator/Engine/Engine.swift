import EmulatorHTTP
import Foundation
import JSONCore

/// The DataSync semantics: keysets, classes, objects, the change feed. Synchronous and confined
/// to its owner (``DataSyncService``, under its lock), so every request is one atomic step.
final class Engine {
    var keysets: [String: Keyset] = [:]
    /// Classes every new keyset starts with (the `--classes` file), in definition order.
    var classTemplate: [ClassDefinition] = []
    /// The last change-feed sequence number handed out.
    var revision: UInt64 = 0
    /// The emulator's clock, shared with every other service.
    let clock: EmulatorClock
    var feed = ChangeFeed()
    let filterFastConditionLimit: Int
    /// Signs list cursors.
    var cursorKey: [UInt8]
    /// Set by every committed change; the owner persists and clears it.
    var dirty = false
    /// What changed since the last save, and the open transaction's undo records (`Store/ChangeLog.swift`).
    let changes = ChangeLog()
    /// Whether new keysets keep per-property indexes (off only to measure the full scan).
    var propertyIndexes = true

    init(filterFastConditionLimit: Int, clock: EmulatorClock) {
        self.filterFastConditionLimit = filterFastConditionLimit
        self.clock = clock
        var generator = SystemRandomNumberGenerator()
        cursorKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The current time in whole microseconds since the Unix epoch.
    func now() -> Int64 { clock.now.microsecondsSince1970 }

    /// The last timestamp a write was stamped with (``writeStamp(after:)``); a rolled-back
    /// transaction puts it back, so a write that never happened leaves no trace in later stamps.
    var lastWriteStamp: Int64 = .min
    /// ``lastWriteStamp`` when the open transaction began.
    var lastWriteStampAtTransactionStart: Int64 = .min

    /// The timestamp of a write: the clock's time, but always later than every earlier write's and
    /// than `floor` (the written object's own `updatedAt`). The service orders writes by these
    /// stamps, as clients do (a create at a delete's microsecond reads as part of the deleted
    /// incarnation), so a stopped or coarse clock must not give two writes the same one.
    func writeStamp(after floor: Int64 = .min) -> Int64 {
        var stamp = now()
        if lastWriteStamp != .min { stamp = max(stamp, lastWriteStamp + 1) }
        if floor != .min { stamp = max(stamp, floor + 1) }
        lastWriteStamp = stamp
        return stamp
    }

    /// The keyset of `subscribeKey`, created with the built-ins and the class template on first use.
    func keyset(_ subscribeKey: String) -> Keyset {
        if let existing = keysets[subscribeKey] { return existing }
        var registry = ClassRegistry()
        for definition in classTemplate { registry.store(definition) }
        let keyset = Keyset(
            subscribeKey: subscribeKey, registry: registry, changes: changes, propertyIndexes: propertyIndexes)
        keysets[subscribeKey] = keyset
        return keyset
    }

    // MARK: Commits

    func nextRevision() -> UInt64 {
        revision += 1
        dirty = true
        return revision
    }

    /// An opaque short tag derived from the revision: unique per write within a state.
    static func eTag(for revision: UInt64) -> String {
        let text = String(revision &* 0x9E37_79B9 &+ 0x5bd1_e995, radix: 36)
        return text
    }

    func publish(
        _ keyset: Keyset, _ object: StoredObject, action: ChangeEvent.Action, cause: ChangeEvent.Cause,
        origin: ChangeEvent.Cause = .request, sequence: UInt64, at time: Int64,
        recipients: [ChangeEvent.Recipient]? = nil
    ) {
        let space = object.kind.space
        let eventsEnabled = keyset.registry.definition(space, object.classKey)?.eventsEnabled ?? false
        feed.publish(
            ChangeEvent(
                sequence: sequence, subscribeKey: keyset.subscribeKey, action: action, cause: cause, origin: origin,
                objectType: object.kind.rawValue, className: object.classKey.name,
                classLevel: object.classKey.level.rawValue, classVersion: object.classVersion,
                eventsEnabled: eventsEnabled, id: object.id, object: object.jsonValue,
                time: Date(timeIntervalSince1970: Double(time) / 1_000_000),
                recipients: recipients ?? self.recipients(keyset, object, action: action),
                projections: keyset.registry.eventProjections(space, object.classKey, version: object.classVersion)))
    }

    /// The objects whose channels receive a change to `object`, from the graph as it is now: a
    /// relationship's two sides; an entity itself and, unless it was just created, every entity
    /// on the other side of its memberships and relationships (in either direction).
    func recipients(_ keyset: Keyset, _ object: StoredObject, action: ChangeEvent.Action) -> [ChangeEvent.Recipient] {
        var ids: [String] = []
        if object.kind.space == .relationship {
            ids = [object.sideA, object.sideB].compactMap { $0 }
        } else {
            ids = [object.id]
            if action != .create {
                for linkId in keyset.linkedRelationshipIds(of: object.id) {
                    guard let link = keyset.object(.relationship, linkId) else { continue }
                    ids += [link.sideA, link.sideB].compactMap { $0 }
                }
            }
        }
        // Ids are distinct when their Unicode scalars are (NFC and NFD forms are two entities).
        var seen: Set<ExactString> = []
        return ids.filter { seen.insert(ExactString($0)).inserted }.map { recipient(keyset, id: $0) }
    }

    /// An entity as a recipient: its id and the named projections of its class.
    func recipient(_ keyset: Keyset, id: String) -> ChangeEvent.Recipient {
        guard let entity = keyset.object(.entity, id),
            let projections = keyset.registry.eventProjections(.entity, entity.classKey, version: entity.classVersion)
        else { return ChangeEvent.Recipient(id: id) }
        let named = projections.map(\.name).filter { $0 != ChangeEvent.Projection.defaultName }
        return ChangeEvent.Recipient(id: id, projections: named)
    }

    /// Removes an object and, for an entity, every membership and relationship naming it; each
    /// removal is its own change, and together they are one write on the feed. The entity's
    /// recipients are taken before anything is removed (the graph at the time of the change).
    func removeWithCascade(_ keyset: Keyset, _ space: ClassKind, _ id: String, cause: ChangeEvent.Cause) {
        guard let existing = keyset.object(space, id) else { return }
        feed.beginWrite()
        defer { feed.endWrite() }
        let recipients = recipients(keyset, existing, action: .delete)
        let removedSelf = space == .entity ? recipient(keyset, id: id) : nil
        let linkedIds = removedSelf == nil ? [] : keyset.linkedRelationshipIds(of: id)
        let newestLinked = linkedIds.compactMap { keyset.object(.relationship, $0)?.updatedAt }.max() ?? .min
        guard let removed = keyset.remove(space, id) else { return }
        let time = writeStamp(after: max(removed.updatedAt, newestLinked))
        publish(
            keyset, removed, action: .delete, cause: cause, origin: cause, sequence: nextRevision(), at: time,
            recipients: recipients)
        guard let removedSelf else { return }
        for relationshipId in linkedIds {
            if let linked = keyset.remove(.relationship, relationshipId) {
                // The removed entity is gone from the store, but its channels still get the event.
                let sides = [linked.sideA, linked.sideB].compactMap { $0 }.reduce(into: [String]()) { kept, side in
                    if !kept.contains(where: { $0.isExactly(side) }) { kept.append(side) }
                }
                let linkedRecipients = sides.map { $0.isExactly(id) ? removedSelf : recipient(keyset, id: $0) }
                publish(
                    keyset, linked, action: .delete, cause: .cascade, origin: cause, sequence: nextRevision(),
                    at: time, recipients: linkedRecipients)
            }
        }
    }

    /// Drops every object of `keyset` whose `expiresAt` has passed (with cascades).
    func sweepExpired(_ keyset: Keyset) {
        let now = now()
        for (space, id) in keyset.takeDueExpiries(now: now) {
            guard let object = keyset.object(space, id), object.expiresAt <= now else { continue }
            removeWithCascade(keyset, space, id, cause: .expiry)
        }
    }

    func sweepAll() {
        for key in keysets.keys.sorted() {
            if let keyset = keysets[key] { sweepExpired(keyset) }
        }
    }

    // MARK: Requests

    private static let prefix = "/v1/datasync/subkeys/"

    /// Answers `request`; with a `scope`, lists hold only the rows it lets through (access control).
    func handle(_ request: ServerRequest, scope: ListScope? = nil) -> ServerResponse {
        // One request is one write on the feed, with the expiries swept before it.
        feed.beginWrite()
        defer { feed.endWrite() }
        do {
            return try route(request, scope: scope)
        } catch {
            return Self.errorResponse(error)
        }
    }

    private func route(_ request: ServerRequest, scope: ListScope?) throws(APIError) -> ServerResponse {
        let rawPath = request.rawPath
        guard rawPath.hasPrefix(Self.prefix) else { throw .notFound("no such resource: \(rawPath)") }
        // Split on the byte `/` (a path is bytes; this is also much cheaper than splitting Characters).
        let raw = rawPath.utf8.dropFirst(Self.prefix.utf8.count).split(
            separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        var segments: [String] = []
        segments.reserveCapacity(raw.count)
        for part in raw {
            guard let decoded = PercentDecoding.decode(Substring(part)) else {
                throw .invalid("the path holds a broken percent escape", path: nil)
            }
            segments.append(decoded)
        }
        guard segments.count == 2 || segments.count == 3, !segments[0].isEmpty else {
            throw .notFound("no such resource: \(rawPath)")
        }
        guard let query = PercentDecoding.queryItems(request.rawQuery) else {
            throw .invalid("the query holds a broken percent escape", path: nil)
        }
        // Any request creates its keyset: refuse names a browser would resolve as path steps.
        if let refusal = KeysetName.refusal(segments[0]) { throw .invalid(refusal, path: nil) }
        let keyset = keyset(segments[0])
        sweepExpired(keyset)
        let id = segments.count == 3 ? segments[2] : nil
        if id?.isEmpty == true { throw .notFound("no such resource: \(rawPath)") }
        let method = request.method.uppercased()
        switch segments[1] {
        case "entity-classes", "relationship-classes":
            let kind: ClassKind = segments[1] == "entity-classes" ? .entity : .relationship
            return try handleClasses(request, method: method, keyset: keyset, kind: kind, name: id, query: query)
        default:
            guard let collection = ObjectCollection.all.first(where: { $0.name == segments[1] }) else {
                throw .notFound("no such resource: \(rawPath)")
            }
            let context = RequestContext(
                request: request, keyset: keyset, collection: collection, query: query, target: request.target,
                scope: scope)
            switch (method, id) {
            case ("POST", nil): return try create(context)
            case ("GET", nil): return try list(context)
            case ("GET", let id?): return try get(context, id: id)
            case ("PUT", let id?): return try set(context, id: id)
            case ("PATCH", let id?): return try update(context, id: id)
            case ("DELETE", let id?): return try remove(context, id: id)
            default:
                throw id == nil
                    ? .methodNotAllowed(method, on: "a collection", allow: ["GET", "POST"])
                    : .methodNotAllowed(method, on: "an object", allow: ["GET", "PUT", "PATCH", "DELETE"])
            }
        }
    }

    // MARK: Responses

    static func dataResponse(_ data: JSONValue, status: Int = 200, mediaType: String) -> ServerResponse {
        body(["data": data], status: status, mediaType: mediaType)
    }

    static func body(_ value: JSONValue, status: Int, mediaType: String) -> ServerResponse {
        do {
            let bytes = try value.jsonBytes()
            return ServerResponse(status: status, headers: [("Content-Type", mediaType)], body: bytes)
        } catch {
            return errorResponse(APIError(status: 500, code: .internalError, message: "could not encode the response"))
        }
    }

    static func errorResponse(_ error: APIError) -> ServerResponse {
        let bytes = (try? error.envelope.jsonBytes()) ?? Array(#"{"errors":[{"errorCode":"DS-0000"}]}"#.utf8)
        var headers = [("Content-Type", "application/json")]
        if error.status == 405 {
            headers.append(
                ("Allow", (error.allow ?? ["GET", "POST", "PUT", "PATCH", "DELETE"]).joined(separator: ", ")))
        }
        return ServerResponse(status: error.status, headers: headers, body: bytes)
    }
}

/// Everything an object operation needs about its request.
struct RequestContext {
    var request: ServerRequest
    var keyset: Keyset
    var collection: ObjectCollection
    var query: [(name: String, value: String)]
    var target: String
    /// The rows a list may show (access control); nil shows every row.
    var scope: ListScope? = nil

    /// The single value of a query parameter; a repeated parameter is a 400.
    func queryValue(_ name: String) throws(APIError) -> String? {
        let values = query.filter { $0.name == name }
        guard values.count <= 1 else { throw .invalid("the parameter '\(name)' is repeated", path: name) }
        return values.first?.value
    }
}
