import JSONCore

/// Reads the service's answers: `{"data": {…}}` for one object and
/// `{"data": […], "meta": {…}, "links": {…}}` for a list.
package enum DataSyncEnvelope {
    /// Decodes the object inside `{"data": {…}}`.
    ///
    /// Reads the bytes directly (``objectDirectly(_:from:)``) and, for anything that path does not
    /// take, parses the body into a tree first (``objectThroughTree(_:from:)``), which gives every
    /// error.
    package static func object<T: DataSyncWireConvertible>(_ type: T.Type, from body: [UInt8]) throws -> T {
        if let object = objectDirectly(type, from: body) { return object }
        return try objectThroughTree(type, from: body)
    }

    /// The byte reader alone: the object, or nil for any body it leaves to the tree.
    package static func objectDirectly<T: DataSyncWireConvertible>(_ type: T.Type, from body: [UInt8]) -> T? {
        body.withUnsafeBytes { bytes in
            var reader = DataSyncAnswerReader(bytes)
            guard let fields = try? reader.object(keys: T.wireKeys, kind: T.wireKind) else { return nil }
            return try? T(wire: fields)
        }
    }

    /// Decodes through a parsed ``JSONValue``: the reference the byte reader is checked against.
    package static func objectThroughTree<T: DataSyncWireConvertible>(_ type: T.Type, from body: [UInt8]) throws -> T {
        let root = try parse(body)
        guard let data = root["data"], data.objectValue != nil else {
            throw PubNubError.malformedResponse("expected {\"data\": {…}} holding a \(T.wireKind)", statusCode: nil)
        }
        return try T(wireValue: data)
    }

    /// Decodes the objects of `{"data": […]}` and the page of its `meta` (`nil` when there is no
    /// `meta` object), from the bytes directly where it can, as ``object(_:from:)`` does.
    package static func list<T: DataSyncWireConvertible>(_ type: T.Type, from body: [UInt8]) throws -> (
        [T], PubNubDataSyncPage?
    ) {
        if let list = listDirectly(type, from: body) { return list }
        return try listThroughTree(type, from: body)
    }

    /// The byte reader alone: the objects and page, or nil for any body it leaves to the tree.
    package static func listDirectly<T: DataSyncWireConvertible>(_ type: T.Type, from body: [UInt8]) -> (
        [T], PubNubDataSyncPage?
    )? {
        body.withUnsafeBytes { bytes in
            var reader = DataSyncAnswerReader(bytes)
            var objects: [T] = []
            do {
                // `try?` would flatten "no page" and "not taken" into one nil.
                let page = try reader.list(keys: T.wireKeys, kind: T.wireKind) { fields throws(OffTheFastPath) in
                    do {
                        objects.append(try T(wire: fields))
                    } catch {
                        throw OffTheFastPath()
                    }
                }
                return (objects, page)
            } catch {
                return nil
            }
        }
    }

    /// Decodes a list through a parsed ``JSONValue``: the reference for ``listDirectly(_:from:)``.
    package static func listThroughTree<T: DataSyncWireConvertible>(_ type: T.Type, from body: [UInt8]) throws -> (
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

    /// The page of a list's `meta`; both decoders read it here.
    static func page(from meta: JSONValue?) throws -> PubNubDataSyncPage? {
        guard let meta, !meta.isNull else { return nil }
        let reader = try DataSyncWireReader(kind: "page", value: meta)
        // `has_next` is the one field the service guarantees; absent, this is the last page.
        var hasNext = false
        if let value = try reader.value("has_next"), !value.isNull {
            guard let flag = value.boolValue else {
                throw PubNubError.malformedResponse("page field \"has_next\" must be a boolean", statusCode: nil)
            }
            hasNext = flag
        }
        // The last page has no cursor, whatever the service echoes there.
        let cursor = hasNext ? try reader.optionalString("next_cursor") : nil
        return PubNubDataSyncPage(hasNext: hasNext, cursor: cursor, limit: try reader.optionalInt("limit"))
    }
}
