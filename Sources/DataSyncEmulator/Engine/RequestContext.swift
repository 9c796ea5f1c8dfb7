import EmulatorHTTP

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
