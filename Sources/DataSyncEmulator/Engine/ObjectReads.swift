import EmulatorHTTP
import JSONCore

/// Reading one stored object for the object endpoints: the lookups every get and write starts
/// with. Nothing here changes stored state except the encoded answer kept with an object.
enum ObjectReads {
    /// The object `id` of the request's collection, unexpired at `now`; a 404 otherwise.
    static func find(_ context: RequestContext, id: String, now: Int64) throws(APIError) -> StoredObject {
        guard let object = context.keyset.object(context.collection.space, id), context.collection.contains(object),
            object.expiresAt > now
        else { throw context.collection.notFound(id) }
        return object
    }

    /// The answer ``get(_:id:)`` gives for `id` when the object is there, unexpired at `now`,
    /// and its encoded body is already kept with it; nil otherwise (not found, expired, or not
    /// encoded yet: ``get(_:id:)`` answers those). Reads nothing else and changes nothing.
    static func cachedGet(_ keyset: Keyset, collection: ObjectCollection, id: String, now: Int64) -> ServerResponse? {
        guard let box = keyset.box(collection.space, id), let body = box.getBody, box.object.expiresAt > now,
            collection.contains(box.object)
        else { return nil }
        return ServerResponse(status: 200, headers: collection.contentTypeHeaders, body: body)
    }

    /// `GET` of one object: its `{"data":…}` answer, encoded once and kept with the object.
    static func get(_ context: RequestContext, id: String, now: Int64) throws(APIError) -> ServerResponse {
        guard let box = context.keyset.box(context.collection.space, id), context.collection.contains(box.object),
            box.object.expiresAt > now
        else { throw context.collection.notFound(id) }
        // The same bytes `DataSyncResponse.data` encodes, kept with the box (which a write replaces).
        if let body = box.getBody {
            return ServerResponse(status: 200, headers: context.collection.contentTypeHeaders, body: body)
        }
        let response = DataSyncResponse.data(box.object.jsonValue, mediaType: context.collection.mediaType)
        if response.status == 200 { box.getBody = response.body }
        return response
    }
}
