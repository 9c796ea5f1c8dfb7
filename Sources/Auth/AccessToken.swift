public import Foundation
public import JSONCore

/// An Access Manager (v3) token read locally: what it grants, to whom, and until when.
///
/// Parsing never contacts the service and never checks the signature (that needs the secret key,
/// which a client never has). Use it to show what a token allows, or to ask for a new token
/// before the old one expires.
///
/// ```swift
/// let token = try AccessToken(parsing: text)
/// if token.isExpired(at: Date()) { /* ask your server for a new one */ }
/// token.allows(.read, on: "chat.room-1", in: .channels)
/// ```
///
/// ``description`` shows the token's fields, never its text or signature.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// The token format version (`v`), `2` for every token seen so far.
    public let version: Int
    /// When the token was issued (`t`, whole Unix seconds).
    public let issuedAt: Date
    /// How long the token is valid after ``issuedAt``, in minutes (`ttl`).
    public let ttlMinutes: Int
    /// The only user id allowed to use the token (`uuid`), when the grant named one.
    public let authorizedUserID: String?
    /// Permissions on exact resource names (`res`).
    public let resources: TokenGrants
    /// Permissions on resource name patterns, which are regular expressions (`pat`).
    public let patterns: TokenGrants
    /// The free-form metadata the grant attached (`meta`), an object (empty when absent).
    public let meta: JSONValue
    /// The DataSync projections carried in ``meta`` under `pn-projections`.
    public let projections: DataSyncProjections
    /// The signature (`sig`), an HMAC-SHA256 of the rest by the service: 32 bytes.
    public let signature: [UInt8]

    /// When the token stops being valid: ``issuedAt`` plus ``ttlMinutes``.
    public var expiresAt: Date { issuedAt.addingTimeInterval(Double(ttlMinutes) * 60) }

    /// The clock skew ``isExpired(at:clockSkew:)`` allows by default: 30 seconds.
    public static let defaultClockSkew: TimeInterval = 30

    /// Whether the token should be treated as expired at `date`.
    ///
    /// The device clock may be behind the service's; so that a request is not sent with a token
    /// the service already considers expired, the token counts as expired `clockSkew` seconds
    /// before ``expiresAt``. Pass `0` for the exact instant.
    ///
    /// - Parameters:
    ///   - date: The moment to check, usually `Date()`.
    ///   - clockSkew: How many seconds early the token counts as expired, for a device clock behind the
    ///     service's; 30 by default, negative values count as 0.
    public func isExpired(at date: Date, clockSkew: TimeInterval = defaultClockSkew) -> Bool {
        date.addingTimeInterval(max(0, clockSkew)) >= expiresAt
    }

    /// Whether the token grants every operation in `permission` on the resource `name` of
    /// `bucket`.
    ///
    /// An exact entry for `name` decides alone. Otherwise the bucket's patterns are tried as
    /// regular expressions matched anywhere in `name` (the service does not anchor them, so write
    /// `^…$` in grants); any matching pattern that holds every bit in `permission` allows it. An
    /// invalid pattern never matches.
    ///
    /// ```swift
    /// token.allows([.get, .update], on: "customer.42", in: .dataSyncEntities)
    /// ```
    ///
    /// - Parameters:
    ///   - permission: The operations to check, all of which must be granted, such as `[.get,
    ///     .update]`.
    ///   - name: The resource's name exactly as in the grant: a channel name, a user id, an entity id.
    ///   - bucket: The kind of resource, such as `.channels` or `.dataSyncEntities`.
    public func allows(_ permission: TokenPermission, on name: String, in bucket: TokenResourceBucket) -> Bool {
        if let exact = resources[bucket][name] {
            return exact.contains(permission)
        }
        for (pattern, granted) in patterns[bucket] where granted.contains(permission) {
            if TokenPattern.matches(pattern, name) { return true }
        }
        return false
    }

    /// Reads a token from its text form: base64url with or without `=` padding, standard base64,
    /// or either of those percent-encoded. Surrounding whitespace is ignored.
    ///
    /// - Throws: ``AuthError`` saying what is wrong and where: an empty text, a character outside
    ///   base64, CBOR that is truncated, malformed or too deeply nested, a declared length larger
    ///   than the data, or a field that is missing or of the wrong type.
    public init(parsing text: String) throws(AuthError) {
        try self.init(cbor: try TokenEncoding.decode(text))
    }

    /// Reads a token from its decoded CBOR bytes.
    ///
    /// - Throws: ``AuthError`` as ``init(parsing:)`` does, minus the text encoding errors.
    public init(cbor bytes: [UInt8]) throws(AuthError) {
        let root = try CBORReader.decode(bytes)
        let fields = try TokenFields(root)
        version = try fields.integer("v", as: Int.self)
        let seconds = try fields.integer("t", as: Int64.self)
        issuedAt = Date(timeIntervalSince1970: TimeInterval(seconds))
        ttlMinutes = try fields.integer("ttl", as: Int.self)
        resources = try fields.grants("res")
        patterns = try fields.grants("pat")
        authorizedUserID = try fields.optionalText("uuid")
        signature = try fields.bytes("sig")
        meta = try fields.meta("meta")
        projections = try DataSyncProjections(meta: meta)
    }

    /// Version, issue time, TTL, user id and entry counts; never the token text or signature.
    public var description: String {
        var parts = [
            "v\(version)",
            "issued \(ISO8601Timestamp.string(from: issuedAt, fractionDigits: 0))",
            "ttl \(ttlMinutes) min",
        ]
        if let authorizedUserID { parts.append("user \(authorizedUserID)") }
        parts.append("\(resources.count) resources")
        parts.append("\(patterns.count) patterns")
        if !projections.isEmpty { parts.append("projections") }
        return "AccessToken(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The parsed fields without ``signature``, which together with them would rebuild the token.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "version": version, "issuedAt": issuedAt, "ttlMinutes": ttlMinutes,
                "authorizedUserID": authorizedUserID as Any, "resources": resources, "patterns": patterns,
                "meta": meta, "projections": projections, "signature": "REDACTED",
            ],
            displayStyle: .struct)
    }
}

/// The top-level map of a token, with typed accessors that explain what is wrong.
private struct TokenFields {
    private var entries: [String: CBORValue] = [:]

    init(_ root: CBORValue) throws(AuthError) {
        guard case .map(let list) = root.untagged else {
            throw AuthError(code: .invalidToken, message: "a token is a CBOR map, found a \(root.typeName)")
        }
        for entry in list {
            guard let key = entry.key.keyString else {
                throw AuthError(code: .invalidToken, message: "a token field name is not valid UTF-8")
            }
            guard entries.updateValue(entry.value, forKey: key) == nil else {
                throw AuthError(code: .invalidToken, message: "field '\(key)' appears twice")
            }
        }
    }

    func integer<T: FixedWidthInteger>(_ key: String, as type: T.Type) throws(AuthError) -> T {
        guard let value = entries[key] else {
            throw AuthError(code: .invalidToken, message: "field '\(key)' is missing")
        }
        guard case .unsigned(let number) = value.untagged else {
            throw AuthError(
                code: .invalidToken, message: "field '\(key)' is a \(value.typeName), expected an unsigned integer")
        }
        guard let result = T(exactly: number) else {
            throw AuthError(code: .invalidToken, message: "field '\(key)' is out of range (\(number))")
        }
        return result
    }

    func optionalText(_ key: String) throws(AuthError) -> String? {
        guard let value = entries[key] else { return nil }
        switch value.untagged {
        case .textString(let text): return text
        case .null, .undefined: return nil
        default:
            throw AuthError(code: .invalidToken, message: "field '\(key)' is a \(value.typeName), expected text")
        }
    }

    func bytes(_ key: String) throws(AuthError) -> [UInt8] {
        guard let value = entries[key] else {
            throw AuthError(code: .invalidToken, message: "field '\(key)' is missing")
        }
        guard case .byteString(let bytes) = value.untagged else {
            throw AuthError(
                code: .invalidToken, message: "field '\(key)' is a \(value.typeName), expected a byte string")
        }
        return bytes
    }

    func grants(_ key: String) throws(AuthError) -> TokenGrants {
        guard let value = entries[key] else { return TokenGrants() }
        guard case .map(let bucketList) = value.untagged else {
            throw AuthError(code: .invalidToken, message: "field '\(key)' is a \(value.typeName), expected a map")
        }
        var buckets: [TokenResourceBucket: [String: TokenPermission]] = [:]
        for bucketEntry in bucketList {
            guard let bucketName = bucketEntry.key.keyString else {
                throw AuthError(code: .invalidToken, message: "a bucket name in '\(key)' is not valid UTF-8")
            }
            let bucket = TokenResourceBucket(rawValue: bucketName)
            guard buckets[bucket] == nil else {
                throw AuthError(code: .invalidToken, message: "bucket '\(key).\(bucketName)' appears twice")
            }
            guard case .map(let list) = bucketEntry.value.untagged else {
                throw AuthError(
                    code: .invalidToken,
                    message: "bucket '\(key).\(bucketName)' is a \(bucketEntry.value.typeName), expected a map")
            }
            var table: [String: TokenPermission] = [:]
            for entry in list {
                guard let name = entry.key.keyString else {
                    throw AuthError(
                        code: .invalidToken, message: "a resource name in '\(key).\(bucketName)' is not valid UTF-8")
                }
                guard case .unsigned(let bits) = entry.value.untagged else {
                    throw AuthError(
                        code: .invalidToken,
                        message:
                            "permissions of '\(name)' in '\(key).\(bucketName)' are a \(entry.value.typeName), expected an unsigned integer"
                    )
                }
                guard table.updateValue(TokenPermission(rawValue: bits), forKey: name) == nil else {
                    throw AuthError(
                        code: .invalidToken, message: "resource '\(name)' appears twice in '\(key).\(bucketName)'")
                }
            }
            buckets[bucket] = table
        }
        return TokenGrants(buckets)
    }

    func meta(_ key: String) throws(AuthError) -> JSONValue {
        guard let value = entries[key] else { return [:] }
        switch value.untagged {
        case .map, .null, .undefined:
            let json = try CBORJSON.convert(value)
            return json.isNull ? [:] : json
        default:
            throw AuthError(code: .invalidToken, message: "field '\(key)' is a \(value.typeName), expected a map")
        }
    }
}

/// Conversion of token metadata from CBOR to JSON.
enum CBORJSON {
    /// Converts `value`: integers to numbers (beyond 64 bits to doubles), floats to numbers
    /// (non-finite ones to null), byte strings to standard base64 text, tags to their content,
    /// `undefined` and other simple values to null.
    static func convert(_ value: CBORValue) throws(AuthError) -> JSONValue {
        switch value {
        case .unsigned(let number):
            if let exact = Int64(exactly: number) { return .int(exact) }
            return .double(Double(number))
        case .negative(let number):
            if let exact = Int64(exactly: number) { return .int(-1 - exact) }
            return .double(-1 - Double(number))
        case .byteString(let bytes):
            return .string(Data(bytes).base64EncodedString())
        case .textString(let text):
            return .string(text)
        case .array(let items):
            var converted: [JSONValue] = []
            converted.reserveCapacity(items.count)
            for item in items { converted.append(try convert(item)) }
            return .array(converted)
        case .map(let entries):
            var object: [String: JSONValue] = [:]
            for entry in entries {
                guard let key = entry.key.keyString else {
                    throw AuthError(code: .invalidToken, message: "a meta key is not valid UTF-8")
                }
                object[key] = try convert(entry.value)
            }
            return .object(object)
        case .tagged(_, let inner):
            return try convert(inner)
        case .bool(let flag):
            return .bool(flag)
        case .float(let number):
            return number.isFinite ? .double(number) : .null
        case .null, .undefined, .simple:
            return .null
        }
    }
}
