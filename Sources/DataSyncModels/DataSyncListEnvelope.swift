import JSONCore

/// Reads the service's answers: `{"data": {…}}` for one object and
/// `{"data": […], "meta": {…}, "links": {…}}` for a list.
package enum DataSyncEnvelope {
    /// Decodes the object inside `{"data": {…}}`.
    package static func object<T: DataSyncWireConvertible>(_ type: T.Type, from body: [UInt8]) throws -> T {
        let root = try parse(body)
        guard let data = root["data"], data.objectValue != nil else {
            throw PubNubError.malformedResponse("expected {\"data\": {…}} holding a \(T.wireKind)", statusCode: nil)
        }
        return try T(wireValue: data)
    }

    /// Decodes the objects of `{"data": […]}` and the page of its `meta` (`nil` when there is no
    /// `meta` object).
    package static func list<T: DataSyncWireConvertible>(_ type: T.Type, from body: [UInt8]) throws -> (
        [T], PubNubDataSyncPage?
    ) {
        let root = try parse(body)
        guard let items = root["data"]?.arrayValue else {
            throw PubNubError.malformedResponse("expected {\"data\": […]} holding \(T.wireKind)s", statusCode: nil)
        }
        var objects: [T] = []
        objects.reserveCapacity(items.count)
        for item in items {
            objects.append(try T(wireValue: item))
        }
        return (objects, try page(from: root["meta"]))
    }

    private static func parse(_ body: [UInt8]) throws -> JSONValue {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: body)
        } catch {
            let what = body.isEmpty ? "the body is empty" : "the body is not JSON (\(error))"
            throw PubNubError.malformedResponse(what, statusCode: nil, underlying: error)
        }
        guard root.objectValue != nil else {
            throw PubNubError.malformedResponse("expected a JSON object, found \(root.typeName)", statusCode: nil)
        }
        return root
    }

    private static func page(from meta: JSONValue?) throws -> PubNubDataSyncPage? {
        guard let meta, !meta.isNull else { return nil }
        let reader = try DataSyncWireReader(kind: "page", value: meta)
        guard let hasNextValue = reader.fields["has_next"], !hasNextValue.isNull else {
            return PubNubDataSyncPage(
                hasNext: false, cursor: try reader.optionalString("next_cursor"), limit: try reader.optionalInt("limit")
            )
        }
        guard let hasNext = hasNextValue.boolValue else {
            throw PubNubError.malformedResponse("page field \"has_next\" must be a boolean", statusCode: nil)
        }
        return PubNubDataSyncPage(
            hasNext: hasNext, cursor: try reader.optionalString("next_cursor"), limit: try reader.optionalInt("limit"))
    }
}
