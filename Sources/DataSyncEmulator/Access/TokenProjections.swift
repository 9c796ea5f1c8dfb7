import EmulatorHTTP
import JSONCore

/// The DataSync projections a token names in `meta.pn-projections`:
/// `{"res":{"datasync:<type>:<id>":"<projection>"},"pat":{"datasync:<type>:<regex>":"<projection>"}}`
/// with `<type>` one of `entities`, `users`, `channels`, `relationships`, `memberships`.
enum TokenProjections {
    static let metaKey = "pn-projections"

    /// The projection the token names for the object `id` of `type`: an exact entry first, then
    /// the first matching pattern (in sorted order); nil when it names none.
    static func name(in meta: JSONValue, type: String, id: String) -> String? {
        guard let table = meta[metaKey] else { return nil }
        let prefix = "datasync:\(type):"
        if let exact = table["res"]?[prefix + id]?.stringValue { return exact }
        guard let patterns = table["pat"]?.objectValue else { return nil }
        for key in patterns.keys.sorted() where key.hasPrefix(prefix) {
            if let name = patterns[key]?.stringValue, AccessTokenCodec.matches(String(key.dropFirst(prefix.count)), id)
            {
                return name
            }
        }
        return nil
    }
}

extension DataSyncService: DataSyncReadProjector {
    /// Applies the token's projections to a get or list answer: each object a projection is
    /// named for keeps only that projection's `status` and `payload` parts; a name the object's
    /// class does not define makes the whole read a 403 `DS-0202`.
    func project(_ response: ServerResponse, token: AccessTokenContent, collection: String, subscribeKey: String)
        -> ServerResponse
    {
        guard response.status == 200, token.meta[TokenProjections.metaKey] != nil,
            let kind = ObjectCollection.all.first(where: { $0.name == collection }),
            var body = try? JSONValue(parsing: response.body), let data = body["data"]
        else { return response }
        var refusal: String?
        func view(_ object: JSONValue) -> JSONValue {
            guard let id = object["id"]?.stringValue,
                let name = TokenProjections.name(in: token.meta, type: collection, id: id)
            else { return object }
            let (found, className, projections) = projections(subscribeKey: subscribeKey, collection: kind, id: id)
            guard found else { return object }
            guard let projections else {
                if name != ChangeEvent.Projection.defaultName {
                    refusal = "the token names the projection '\(name)', which class \(className) does not define"
                }
                return object
            }
            guard let chosen = projections.first(where: { $0.name == name }) else {
                refusal = "the token names the projection '\(name)', which class \(className) does not define"
                return object
            }
            return .object(DataSyncEventEnvelopes.filtered(object.objectValue ?? [:], pointers: chosen.pointers))
        }
        if let rows = data.arrayValue {
            body["data"] = .array(rows.map(view))
        } else {
            body["data"] = view(data)
        }
        if let refusal { return AccessWire.dataSyncInvalidAuth(refusal) }
        var projected = response
        projected.body = (try? body.jsonBytes()) ?? response.body
        return projected
    }
}
