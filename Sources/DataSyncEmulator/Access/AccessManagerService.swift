import EmulatorHTTP
import JSONCore

/// Access Manager v3 as server SDKs call it: `POST /v3/pam/{sub}/grant` mints a token,
/// `DELETE /v3/pam/{sub}/grant/{token}` revokes one. Both need a request signature made with the
/// keyset's secret key (never a token), on any known keyset, whether or not its access control
/// is on.
struct AccessManagerService: EmulatorService {
    let registry: AccessRegistry

    static let prefix = "/v3/pam/"
    /// The grant TTL bounds, in minutes (the service's defaults).
    static let ttlRange: ClosedRange<Int64> = 1...43_200

    /// Grant body bucket names → token bucket names.
    static let buckets: [String: String] = [
        "channels": "chan", "groups": "grp", "uuids": "uuid", "users": "usr", "spaces": "spc",
        "datasync:entities": "datasync:entities", "datasync:relationships": "datasync:relationships",
        "datasync:memberships": "datasync:memberships",
    ]

    func claims(_ request: ServerRequest) -> Bool { request.rawPath.hasPrefix(Self.prefix) }

    func respond(to request: ServerRequest) async -> ServerResponse {
        // v3 pam {sub} grant [{token}]
        let raw = PubSubWire.rawSegments(request.rawPath)
        let method = request.method.uppercased()
        guard raw.count >= 4, raw[3] == "grant", let subscribeKey = PercentDecoding.decode(raw[2]) else {
            return AccessWire.classic(404, "Not Found")
        }
        guard let keyset = registry.keysets[subscribeKey] else { return PubSubWire.invalidSubscribeKey() }
        let isGrant = raw.count == 4 && method == "POST"
        let isRevoke = raw.count == 5 && method == "DELETE"
        guard isGrant || isRevoke else { return AccessWire.classic(404, "Not Found") }
        let query = PercentDecoding.queryItems(request.rawQuery) ?? []
        guard query.contains(where: { $0.name == "signature" }) else { return AccessWire.signatureFailure(nil) }
        if case .failure(let failure) = registry.verifySignature(request, query: query, keyset: keyset) {
            return AccessWire.signatureFailure(failure)
        }
        if isRevoke { return revoke(raw[4], keyset: keyset) }
        switch Self.parseGrant(request.body, issuedAt: UInt64(max(0, registry.nowSeconds))) {
        case .failure(let refusal): return refusal.response
        case .success(let content):
            let token = AccessTokenCodec.mint(content, secretKey: keyset.secretKey)
            return PubSubWire.json(
                200,
                [
                    "status": 200, "data": ["message": "Success", "token": .string(token)],
                    "service": .string(AccessWire.service),
                ])
        }
    }

    private func revoke(_ rawToken: Substring, keyset: PubSubKeyset) -> ServerResponse {
        guard let text = PercentDecoding.decode(rawToken),
            case .success(let token) = AccessTokenCodec.verify(text, secretKey: keyset.secretKey)
        else {
            return AccessWire.v3Error(
                400, "Invalid token", source: "revoke", detail: "The token was not issued for this keyset.",
                location: "token", locationType: "path")
        }
        registry.revoke(token.signature, subscribeKey: keyset.subscribeKey)
        return PubSubWire.json(
            200, ["status": 200, "data": ["message": "Success"], "service": .string(AccessWire.service)])
    }

    /// A refused grant body: the v3 error with `source: "grant"`.
    struct Refusal: Error {
        var message: String
        var detail: String
        var location: String

        var response: ServerResponse {
            AccessWire.v3Error(400, message, source: "grant", detail: detail, location: location, locationType: "body")
        }
    }

    /// Reads a grant body `{"ttl":N,"permissions":{"resources":{…},"patterns":{…},"meta":{…},"uuid":…}}`.
    static func parseGrant(_ body: [UInt8], issuedAt: UInt64) -> Result<AccessTokenContent, Refusal> {
        guard let json = try? JSONValue(parsing: body), json.objectValue != nil else {
            return .failure(
                Refusal(message: "Invalid JSON", detail: "The body is not a JSON object.", location: "body"))
        }
        guard let ttl = json["ttl"]?.int64Value, ttlRange.contains(ttl) else {
            return .failure(
                Refusal(message: "Invalid ttl", detail: "Range should be 1 to 43200 minute(s).", location: "ttl"))
        }
        guard let permissions = json["permissions"], permissions.objectValue != nil else {
            return .failure(
                Refusal(
                    message: "Invalid permissions", detail: "'permissions' must be an object.", location: "permissions")
            )
        }
        var tables: [[String: [String: UInt64]]] = []
        for scope in ["resources", "patterns"] {
            switch table(permissions[scope], scope: scope) {
            case .success(let table): tables.append(table)
            case .failure(let refusal): return .failure(refusal)
            }
        }
        guard tables.contains(where: { $0.values.contains { !$0.isEmpty } }) else {
            return .failure(
                Refusal(
                    message: "Invalid permissions", detail: "At least one resource or pattern must be granted.",
                    location: "permissions"))
        }
        let meta = permissions["meta"] ?? [:]
        guard meta.isNull || meta.objectValue != nil else {
            return .failure(
                Refusal(message: "Invalid meta", detail: "'meta' must be an object.", location: "permissions.meta"))
        }
        var uuid: String?
        if let value = permissions["uuid"], !value.isNull {
            guard let text = value.stringValue, !text.isEmpty else {
                return .failure(
                    Refusal(
                        message: "Invalid uuid", detail: "'uuid' must be a non-empty string.",
                        location: "permissions.uuid"))
            }
            uuid = text
        }
        return .success(
            AccessTokenContent(
                issuedAt: issuedAt, ttlMinutes: UInt64(ttl), resources: tables[0], patterns: tables[1],
                meta: meta.isNull ? [:] : meta, authorizedUUID: uuid))
    }

    private static func table(_ value: JSONValue?, scope: String) -> Result<[String: [String: UInt64]], Refusal> {
        guard let value, !value.isNull else { return .success([:]) }
        guard let object = value.objectValue else {
            return .failure(
                Refusal(
                    message: "Invalid permissions", detail: "'\(scope)' must be an object.",
                    location: "permissions.\(scope)"))
        }
        var table: [String: [String: UInt64]] = [:]
        for (bucketName, names) in object {
            let location = "permissions.\(scope).\(bucketName)"
            guard let bucket = buckets[bucketName] else {
                return .failure(
                    Refusal(
                        message: "Invalid permissions", detail: "Unknown resource type '\(bucketName)'.",
                        location: location))
            }
            guard let entries = names.objectValue else {
                return .failure(
                    Refusal(
                        message: "Invalid permissions", detail: "'\(bucketName)' must be an object.", location: location
                    ))
            }
            var granted: [String: UInt64] = [:]
            for (name, bits) in entries {
                guard let number = bits.int64Value, (0...255).contains(number) else {
                    return .failure(
                        Refusal(
                            message: "Invalid permissions",
                            detail: "Permissions of '\(name)' must be an integer from 0 to 255.",
                            location: location))
                }
                if scope == "patterns", (try? Regex(name)) == nil {
                    return .failure(
                        Refusal(
                            message: "Invalid pattern", detail: "'\(name)' is not a regular expression.",
                            location: location))
                }
                granted[name] = UInt64(number)
            }
            if !granted.isEmpty || table[bucket] == nil { table[bucket] = granted }
        }
        return .success(table)
    }
}
