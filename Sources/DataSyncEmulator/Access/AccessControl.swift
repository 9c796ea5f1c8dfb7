import EmulatorHTTP
import JSONCore
import PubNubBase

/// The keysets access control knows, the clock it reads and the tokens revoked so far: shared by
/// the grant service and the authorizer.
final class AccessRegistry: Sendable {
    /// Keysets by subscribe key.
    let keysets: [String: PubSubKeyset]
    /// Whether any keyset has access control on (when none has, every request is allowed).
    let anyAccessControl: Bool
    let clock: EmulatorClock
    /// `subscribeKey` + the revoked token's signature.
    private let revoked = Locked<Set<[UInt8]>>([])

    init(keysets: [PubSubKeyset], clock: EmulatorClock) {
        var table: [String: PubSubKeyset] = [:]
        for keyset in keysets where table[keyset.subscribeKey] == nil { table[keyset.subscribeKey] = keyset }
        self.keysets = table
        self.anyAccessControl = table.values.contains { $0.accessControl }
        self.clock = clock
    }

    /// The emulator clock in whole Unix seconds.
    var nowSeconds: Int64 {
        let nanos = clock.now.nanosecondsSince1970
        return nanos >= 0 ? nanos / 1_000_000_000 : (nanos + 1) / 1_000_000_000 - 1
    }

    func revoke(_ signature: [UInt8], subscribeKey: String) {
        _ = revoked.withLock { $0.insert(Array(subscribeKey.utf8) + [0] + signature) }
    }

    func isRevoked(_ signature: [UInt8], subscribeKey: String) -> Bool {
        revoked.withLock { $0.contains(Array(subscribeKey.utf8) + [0] + signature) }
    }

    /// Checks the request signature of `request` against `keyset`.
    func verifySignature(
        _ request: ServerRequest, query: [(name: String, value: String)], keyset: PubSubKeyset
    ) -> Result<Void, RequestSignature.Failure> {
        RequestSignature.verify(
            method: request.method, path: request.rawPath, query: query, body: request.body,
            publishKey: keyset.publishKey, subscribeKey: keyset.subscribeKey, secretKey: keyset.secretKey,
            now: nowSeconds)
    }

    /// The token `text` on `keyset` when it is valid now, or the answer refusing it.
    func validToken(_ text: String, keyset: PubSubKeyset) -> Result<AccessTokenContent, TokenFailure> {
        switch AccessTokenCodec.verify(text, secretKey: keyset.secretKey) {
        case .failure: return .failure(.invalid)
        case .success(let token):
            if isRevoked(token.signature, subscribeKey: keyset.subscribeKey) { return .failure(.revoked) }
            if nowSeconds < 0 || UInt64(nowSeconds) >= token.expiresAt { return .failure(.expired) }
            return .success(token)
        }
    }

    enum TokenFailure: Error {
        case invalid, revoked, expired
    }
}

/// The authorization hook (Documentation/Emulator.md, "Access control"): on a keyset with
/// access control on, every request but `/time/0` and the grant calls needs a valid request
/// signature or a token whose grants cover the operation.
struct AccessControl: EmulatorAuthorizer {
    let registry: AccessRegistry
    /// Applies token projections to DataSync reads.
    let projector: (any DataSyncReadProjector)?

    /// What a request does, as far as permissions go.
    enum Operation: Equatable {
        /// Publish, signal, fire: write on the channel.
        case publish(channel: String)
        /// Subscribe, heartbeat, leave, state, here now on channels: read on each channel and group.
        case read(channels: [String], groups: [String])
        /// History and message actions: `needed` on every channel (read to fetch, count and list
        /// actions; update to add an action; delete to delete messages or remove an action).
        case channels(AccessBits, [String])
        /// Where now, global here now, list of groups, listing or removing a push device: any
        /// valid token.
        case anyToken
        /// Channel-group management: manage on the group.
        case manage(group: String)
        /// A DataSync object call.
        case dataSync(collection: String, id: String?, method: String)
        /// DataSync class definitions: reads with any token, writes signed only.
        case dataSyncClasses(write: Bool)
    }

    func authorize(_ request: ServerRequest) async -> AuthorizationDecision {
        switch decision(request) {
        case .allow: return .allow
        case .deny(let response): return .deny(response)
        case .allowRewriting(let rewrite): return .allowRewriting { rewrite($0) }
        case .allowScoped(let scope, nil): return .allowScoped(scope, rewrite: nil)
        case .allowScoped(let scope, let rewrite?): return .allowScoped(scope, rewrite: { rewrite($0) })
        }
    }

    /// The same decision as ``authorize(_:)``, made at once: every check is synchronous (token
    /// and signature verification, a grant lookup; the rewrites parse and encode one answer).
    func authorizeImmediately(_ request: ServerRequest) -> ImmediateAuthorizationDecision? {
        decision(request)
    }

    private func decision(_ request: ServerRequest) -> ImmediateAuthorizationDecision {
        // No keyset checks anything: skip reading the request at all.
        guard registry.anyAccessControl else { return .allow }
        guard let (subscribeKey, operation) = Self.classify(request) else { return .allow }
        guard let keyset = registry.keysets[subscribeKey], keyset.accessControl else { return .allow }
        let query = PercentDecoding.queryItems(request.rawQuery) ?? []
        let isDataSync: Bool
        switch operation {
        case .dataSync, .dataSyncClasses: isDataSync = true
        default: isDataSync = false
        }
        if query.contains(where: { $0.name == "signature" }) {
            switch registry.verifySignature(request, query: query, keyset: keyset) {
            case .success: return .allow
            case .failure(let failure): return .deny(AccessWire.signatureFailure(failure))
            }
        }
        guard let auth = query.first(where: { $0.name == "auth" })?.value, !auth.isEmpty else {
            return .deny(isDataSync ? AccessWire.dataSyncUnauthorized() : Self.denial(operation))
        }
        let token: AccessTokenContent
        switch registry.validToken(auth, keyset: keyset) {
        case .success(let valid): token = valid
        case .failure(.expired): return .deny(AccessWire.classic(403, AccessWire.expiredMessage))
        case .failure(.revoked): return .deny(AccessWire.classic(403, AccessWire.revokedMessage))
        case .failure(.invalid): return .deny(AccessWire.classic(403, "Forbidden"))
        }
        if let authorized = token.authorizedUUID, authorized != query.first(where: { $0.name == "uuid" })?.value {
            return .deny(AccessWire.classic(403, "Forbidden"))
        }
        return decide(operation, token: token, request: request, subscribeKey: subscribeKey)
    }

    private func decide(
        _ operation: Operation, token: AccessTokenContent, request: ServerRequest, subscribeKey: String
    ) -> ImmediateAuthorizationDecision {
        switch operation {
        case .publish(let channel):
            return token.allows(.write, on: channel, in: "chan")
                ? .allow : .deny(AccessWire.forbidden(channels: [channel]))
        case .read(let channels, let groups):
            let deniedChannels = channels.filter { !token.allows(.read, on: $0, in: "chan") }
            let deniedGroups = groups.filter { !token.allows(.read, on: $0, in: "grp") }
            if deniedChannels.isEmpty && deniedGroups.isEmpty { return .allow }
            return .deny(AccessWire.forbidden(channels: deniedChannels, groups: deniedGroups))
        case .channels(let needed, let channels):
            let denied = channels.filter { !token.allows(needed, on: $0, in: "chan") }
            return denied.isEmpty ? .allow : .deny(AccessWire.forbidden(channels: denied))
        case .anyToken:
            return .allow
        case .manage(let group):
            return token.allows(.manage, on: group, in: "grp") ? .allow : .deny(AccessWire.forbidden(groups: [group]))
        case .dataSyncClasses(let write):
            return write ? .deny(AccessWire.classic(403, "Forbidden")) : .allow
        case .dataSync(let collection, let id, let method):
            let bucket = Self.bucket(collection)
            let needed: AccessBits
            var name = id
            switch (method, id) {
            case ("GET", nil):
                // The service lists only the rows the token may get, so pages, `has_next` and the
                // next cursor are computed without the others; the rewrite then applies projections.
                return .allowScoped(
                    Self.readableRows(token: token, bucket: bucket),
                    rewrite: { response in
                        scopeList(
                            response, token: token, bucket: bucket, collection: collection, subscribeKey: subscribeKey)
                    })
            case ("GET", _?): needed = .get
            case ("POST", nil):
                needed = .create
                name = (try? JSONValue(parsing: request.body))?["data"]?["id"]?.stringValue
            case ("PUT", _?), ("PATCH", _?): needed = .update
            case ("DELETE", _?): needed = .delete
            default: return .allow  // the service answers 405
            }
            // A create without an id cannot be matched against a grant: only a signed request may.
            guard let name, token.allows(needed, on: name, in: bucket) else {
                return .deny(AccessWire.classic(403, "Forbidden"))
            }
            if method == "GET", let projector {
                return .allowRewriting { response in
                    projector.project(response, token: token, collection: collection, subscribeKey: subscribeKey)
                }
            }
            return .allow
        }
    }

    /// The rows of a list the token may `get` (the service scopes lists, it does not refuse them):
    /// the same test as ``AccessTokenContent/allows(_:on:in:)``, with the bucket's patterns
    /// compiled once per list instead of once per row.
    static func readableRows(token: AccessTokenContent, bucket: String) -> ListScope {
        ListScope {
            let exact = token.resources[bucket] ?? [:]
            let patterns = (token.patterns[bucket] ?? [:]).compactMap { pattern, granted -> Regex<AnyRegexOutput>? in
                guard AccessBits(rawValue: granted).isSuperset(of: .get) else { return nil }
                return try? Regex(pattern)
            }
            return { id in
                if let granted = exact[id] { return AccessBits(rawValue: granted).isSuperset(of: .get) }
                return patterns.contains { (try? $0.firstMatch(in: id)) != nil }
            }
        }
    }

    /// Drops the rows of a list answer the token may not `get` (a second line behind the
    /// scope the service lists with: a service that ignored the scope still shows no hidden row
    /// in `data`), then applies token projections.
    private func scopeList(
        _ response: ServerResponse, token: AccessTokenContent, bucket: String, collection: String, subscribeKey: String
    ) -> ServerResponse {
        guard response.status == 200, var body = try? JSONValue(parsing: response.body),
            let rows = body["data"]?.arrayValue
        else { return response }
        let kept = rows.filter { row in row["id"]?.stringValue.map { token.allows(.get, on: $0, in: bucket) } ?? false }
        body["data"] = .array(kept)
        var scoped = response
        scoped.body = (try? body.jsonBytes()) ?? response.body
        guard let projector else { return scoped }
        return projector.project(scoped, token: token, collection: collection, subscribeKey: subscribeKey)
    }

    /// The token bucket of a DataSync collection.
    static func bucket(_ collection: String) -> String {
        switch collection {
        case "users": return "uuid"
        case "channels": return "chan"
        default: return "datasync:" + collection
        }
    }

    /// The 403 for a pub/sub request that carries no credential at all.
    static func denial(_ operation: Operation) -> ServerResponse {
        switch operation {
        case .publish(let channel): return AccessWire.forbidden(channels: [channel])
        case .read(let channels, let groups): return AccessWire.forbidden(channels: channels, groups: groups)
        case .channels(_, let channels): return AccessWire.forbidden(channels: channels)
        case .manage(let group): return AccessWire.forbidden(groups: [group])
        default: return AccessWire.classic(403, "Forbidden")
        }
    }

    /// The subscribe key a request is for and what it does; nil for requests access control
    /// never checks (`/time/0`, grant and revoke, unknown paths).
    static func classify(_ request: ServerRequest) -> (String, Operation)? {
        let raw = PubSubWire.rawSegments(request.rawPath)
        func decoded(_ index: Int) -> String? { index < raw.count ? PercentDecoding.decode(raw[index]) : nil }
        let query = PubSubWire.query(request.rawQuery)
        let groups = query.list("channel-group")
        guard let first = raw.first else { return nil }
        switch first {
        case "publish", "signal":
            guard let sub = decoded(2), let channel = decoded(4) else { return nil }
            return (sub, .publish(channel: channel))
        case "v2" where raw.count > 1 && raw[1] == "subscribe":
            guard let sub = decoded(2) else { return nil }
            return (sub, .read(channels: raw.count > 3 ? PubSubWire.names(raw[3]) : [], groups: groups))
        case "v2" where raw.count > 1 && raw[1] == "presence":
            guard let sub = decoded(3) else { return nil }
            if raw.count >= 6, raw[4] == "channel" {
                return (sub, .read(channels: PubSubWire.names(raw[5]), groups: groups))
            }
            return (sub, .anyToken)
        case "v2" where raw.count > 1 && raw[1] == "history", "v3" where raw.count > 1 && raw[1].hasPrefix("history"):
            // {v} history[-with-actions] sub-key {sub} channel|message-counts {channels}
            guard let sub = decoded(3) else { return nil }
            let channels = raw.count > 5 ? PubSubWire.names(raw[5]) : []
            let deletes = request.method.uppercased() == "DELETE"
            return (sub, .channels(deletes ? .delete : .read, channels))
        case "v1" where raw.count > 1 && raw[1] == "message-actions":
            // v1 message-actions {sub} channel {channel} [message {tt} [action {actionTt}]]
            guard let sub = decoded(2) else { return nil }
            let channels = decoded(4).map { [$0] } ?? []
            switch request.method.uppercased() {
            case "POST": return (sub, .channels(.update, channels))
            case "DELETE": return (sub, .channels(.delete, channels))
            default: return (sub, .channels(.read, channels))
            }
        case "v1" where raw.count > 2 && raw[1] == "files" && raw[2] == "publish-file":
            // v1 files publish-file {pub} {sub} 0 {channel} 0 {message}: a publish.
            guard let sub = decoded(4), let channel = decoded(6) else { return nil }
            return (sub, .publish(channel: channel))
        case "v1" where raw.count > 1 && raw[1] == "files":
            // v1 files {sub} channels {channel} generate-upload-url | files [{id} {name}]: write to
            // send, read to list and download, delete to delete. The /_files/ storage routes carry
            // their own signature instead.
            guard let sub = decoded(2) else { return nil }
            let channels = decoded(4).map { [$0] } ?? []
            if raw.count > 5, raw[5] == "generate-upload-url" { return (sub, .channels(.write, channels)) }
            return (sub, .channels(request.method.uppercased() == "DELETE" ? .delete : .read, channels))
        case "v1" where raw.count > 1 && raw[1] == "push", "v2" where raw.count > 1 && raw[1] == "push":
            // {v} push sub-key {sub} devices[-apns2] {token} [remove]: changing a device's
            // channels needs read on each (what a subscriber of them needs); listing or removing
            // a device names no channel, so any valid token may.
            guard let sub = decoded(3) else { return nil }
            let changed = query.list("add") + query.list("remove")
            return (sub, changed.isEmpty || raw.count > 6 ? .anyToken : .channels(.read, changed))
        case "v1" where raw.count > 1 && raw[1] == "channel-registration":
            guard let sub = decoded(3) else { return nil }
            if let group = decoded(5) { return (sub, .manage(group: group)) }
            return (sub, .anyToken)
        case "v1" where raw.count > 2 && raw[1] == "datasync" && raw[2] == "subkeys":
            guard let sub = decoded(3), let collection = decoded(4) else { return nil }
            let method = request.method.uppercased()
            if collection == "entity-classes" || collection == "relationship-classes" {
                return (sub, .dataSyncClasses(write: method != "GET"))
            }
            return (
                sub, .dataSync(collection: collection, id: decoded(5).flatMap { $0.isEmpty ? nil : $0 }, method: method)
            )
        default:
            return nil
        }
    }
}

/// Applies the projections a token names (`meta.pn-projections`) to a DataSync read answer.
protocol DataSyncReadProjector: Sendable {
    func project(_ response: ServerResponse, token: AccessTokenContent, collection: String, subscribeKey: String)
        -> ServerResponse
}
