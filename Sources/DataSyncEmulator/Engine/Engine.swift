import EmulatorHTTP
import Foundation
import JSONCore

/// The DataSync semantics, composed from parts with one job each, all confined to their owner
/// (``DataSyncService``, under its one lock, so every request is one atomic step):
///
/// - ``ObjectStore``: the keysets, each with its classes, objects and indexes;
/// - ``Transactions``: revisions, write stamps, begin / commit / roll back;
/// - ``ChangePublisher``: the change feed and each change's recipients and projections;
/// - ``ObjectWriter``: creates, replacements, patches, deletes, cascades, expiry;
/// - ``ObjectLister`` with its ``ListPlanner`` and ``CursorSigner``: lists, which read the
///   store and never write it;
/// - ``ClassEndpoints``, ``ClassDocuments`` and ``Seeder``: classes and seed documents.
///
/// This type routes a request to those parts and holds nothing else. One lock covers them all
/// because a write spans them (the store, the revision, the feed and the state file must agree
/// when a transaction commits or is rolled back), and a list must see the store and the revision
/// of one moment.
final class Engine {
    let store = ObjectStore()
    let publisher = ChangePublisher()
    let transactions: Transactions
    let cursors = CursorSigner()
    let lister: ObjectLister
    let writer: ObjectWriter
    let seeder: Seeder
    /// The most conditions a `filter_fast` may hold (kept for the scratch engine of an import).
    let filterFastConditionLimit: Int

    init(filterFastConditionLimit: Int, clock: EmulatorClock) {
        self.filterFastConditionLimit = filterFastConditionLimit
        transactions = Transactions(clock: clock, changes: store.changes, publisher: publisher)
        lister = ObjectLister(
            planner: ListPlanner(cursors: cursors, filterFastConditionLimit: filterFastConditionLimit))
        writer = ObjectWriter(transactions: transactions)
        seeder = Seeder(store: store, writer: writer)
    }

    // MARK: Requests

    private static let prefix = "/v1/datasync/subkeys/"

    /// Answers `request`; with a `scope`, lists hold only the rows it lets through (access control).
    func handle(_ request: ServerRequest, scope: ListScope? = nil) -> ServerResponse {
        // One request is one write on the feed, with the expiries swept before it.
        publisher.feed.beginWrite()
        defer { publisher.feed.endWrite() }
        do {
            return try route(request, scope: scope)
        } catch {
            return DataSyncResponse.error(error)
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
        let keyset = store.keyset(segments[0])
        writer.sweepExpired(keyset)
        let id = segments.count == 3 ? segments[2] : nil
        if id?.isEmpty == true { throw .notFound("no such resource: \(rawPath)") }
        let method = request.method.uppercased()
        switch segments[1] {
        case "entity-classes", "relationship-classes":
            let kind: ClassKind = segments[1] == "entity-classes" ? .entity : .relationship
            return try ClassEndpoints.handle(
                request, method: method, keyset: keyset, kind: kind, name: id, query: query)
        default:
            guard let collection = ObjectCollection.all.first(where: { $0.name == segments[1] }) else {
                throw .notFound("no such resource: \(rawPath)")
            }
            let context = RequestContext(
                request: request, keyset: keyset, collection: collection, query: query, target: request.target,
                scope: scope)
            switch (method, id) {
            case ("POST", nil): return try writer.create(context)
            case ("GET", nil):
                return try lister.list(context, now: transactions.now(), revision: transactions.revision)
            case ("GET", let id?): return try ObjectReads.get(context, id: id, now: transactions.now())
            case ("PUT", let id?): return try writer.set(context, id: id)
            case ("PATCH", let id?): return try writer.update(context, id: id)
            case ("DELETE", let id?): return try writer.remove(context, id: id)
            default:
                throw id == nil
                    ? .methodNotAllowed(method, on: "a collection", allow: ["GET", "POST"])
                    : .methodNotAllowed(method, on: "an object", allow: ["GET", "PUT", "PATCH", "DELETE"])
            }
        }
    }
}
