/// The last answer a loop serialized for a delivery (from a task or a parked request), kept for
/// the next one: in a fan-out the next is the same answer (one body, shared) for another
/// connection, which then reuses the bytes instead of serializing them again.
struct ResponseMemo {
    private var last: (response: ServerResponse, head: RequestHead, output: ResponseSerializer.Output)?
    /// Answers serialized so far (reuses not counted).
    private(set) var serializedCount = 0

    /// The bytes of `response` to the request `head` describes: the last ones when they serialize
    /// alike, otherwise newly serialized (and kept).
    mutating func output(for response: ServerResponse, head: RequestHead) -> ResponseSerializer.Output {
        if let last, Self.serializeAlike(last.response, response), Self.sameFraming(last.head, head) {
            return last.output
        }
        let output = Self.serialize(response, for: head)
        serializedCount += 1
        last = (response, head, output)
        return output
    }

    /// The bytes of `response` framed for the request `head` describes, with no memo.
    static func serialize(_ response: ServerResponse, for head: RequestHead) -> ResponseSerializer.Output {
        ResponseSerializer.serialize(
            response, method: head.method, keepAlive: head.keepAlive, announcesKeepAlive: head.minorVersion == 0)
    }

    /// Whether `a` and `b` serialize to the same bytes: equal fields and the very same body
    /// storage (a fan-out's shared body), so the check costs no comparison of body bytes.
    static func serializeAlike(_ a: ServerResponse, _ b: ServerResponse) -> Bool {
        guard a.status == b.status, a.framing == b.framing, a.fault == b.fault, a.body.count == b.body.count,
            a.headers.count == b.headers.count
        else { return false }
        let sameBody = a.body.withUnsafeBufferPointer { x in
            b.body.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress }
        }
        guard sameBody else { return false }
        for (x, y) in zip(a.headers, b.headers) where x.name != y.name || x.value != y.value { return false }
        return true
    }

    /// Whether two requests' heads frame an answer alike (method, keep-alive, HTTP version).
    static func sameFraming(_ a: RequestHead, _ b: RequestHead) -> Bool {
        a.method == b.method && a.keepAlive == b.keepAlive && (a.minorVersion == 0) == (b.minorVersion == 0)
    }
}
