import DataSync

/// One kind's `get`, `set`, `update` and `remove` calls, whose arguments are the same for every
/// kind, each answering the object as JSON: the subcommands make one call instead of switching
/// over the five kinds, and a kind's methods are named in one place.
struct ObjectCalls {
    private typealias Options = PubNub.RequestConfiguration

    let get: (_ id: String) async throws -> JSONValue
    let set:
        (_ id: String, _ classVersion: Int, _ status: String?, _ payload: JSONValue?, _ ifMatchesEtag: String?)
            async throws -> JSONValue
    let update:
        (_ id: String, _ operations: [PubNubDataSyncPatchOperation], _ ifMatchesEtag: String?) async throws
            -> JSONValue
    let remove: (_ id: String, _ ifMatchesEtag: String?) async throws -> Void

    /// Binds the four methods of one kind (pass them unapplied, `dataSync.getUser(id:custom:)`).
    init<Object: Encodable>(
        get: @escaping (String, PubNub.RequestConfiguration) async throws -> Object,
        set:
            @escaping (String, Int, String?, (any JSONCodable)?, String?, PubNub.RequestConfiguration) async throws
            -> Object,
        update:
            @escaping (String, [PubNubDataSyncPatchOperation], String?, PubNub.RequestConfiguration) async throws
            -> Object,
        remove: @escaping (String, String?, PubNub.RequestConfiguration) async throws -> Void
    ) {
        self.get = { id in try JSONValue(from: await get(id, Options())) }
        self.set = { id, version, status, payload, etag in
            try JSONValue(from: await set(id, version, status, payload, etag, Options()))
        }
        self.update = { id, operations, etag in try JSONValue(from: await update(id, operations, etag, Options())) }
        self.remove = { id, etag in try await remove(id, etag, Options()) }
    }
}

extension ObjectKind {
    /// This kind's calls on `dataSync`.
    func calls(_ dataSync: PubNubDataSync) -> ObjectCalls {
        switch self {
        case .users:
            ObjectCalls(
                get: dataSync.getUser(id:custom:),
                set: dataSync.setUser(id:classVersion:status:payload:ifMatchesEtag:custom:),
                update: dataSync.updateUser(id:operations:ifMatchesEtag:custom:),
                remove: dataSync.removeUser(id:ifMatchesEtag:custom:))
        case .channels:
            ObjectCalls(
                get: dataSync.getChannel(id:custom:),
                set: dataSync.setChannel(id:classVersion:status:payload:ifMatchesEtag:custom:),
                update: dataSync.updateChannel(id:operations:ifMatchesEtag:custom:),
                remove: dataSync.removeChannel(id:ifMatchesEtag:custom:))
        case .memberships:
            ObjectCalls(
                get: dataSync.getMembership(id:custom:),
                set: dataSync.setMembership(id:classVersion:status:payload:ifMatchesEtag:custom:),
                update: dataSync.updateMembership(id:operations:ifMatchesEtag:custom:),
                remove: dataSync.removeMembership(id:ifMatchesEtag:custom:))
        case .entities:
            ObjectCalls(
                get: dataSync.getEntity(id:custom:),
                set: dataSync.setEntity(id:classVersion:status:payload:ifMatchesEtag:custom:),
                update: dataSync.updateEntity(id:operations:ifMatchesEtag:custom:),
                remove: dataSync.removeEntity(id:ifMatchesEtag:custom:))
        case .relationships:
            ObjectCalls(
                get: dataSync.getRelationship(id:custom:),
                set: dataSync.setRelationship(id:classVersion:status:payload:ifMatchesEtag:custom:),
                update: dataSync.updateRelationship(id:operations:ifMatchesEtag:custom:),
                remove: dataSync.removeRelationship(id:ifMatchesEtag:custom:))
        }
    }
}
