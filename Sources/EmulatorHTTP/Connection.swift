/// One client connection's state. Owned and touched only by the event-loop thread.
final class Connection {
    enum Phase {
        /// Reading (and parsing) a request.
        case reading
        /// A complete request is with the handler.
        case handling
        /// Writing a response.
        case writing
        /// The final response is out and our side is shut down; draining the client's bytes until
        /// it closes, so unread input does not turn our close into a reset that eats the response.
        case lingering
    }

    let id: UInt64
    let fd: Int32
    var phase = Phase.reading
    /// The events the poller watches for this connection.
    var registeredEvents: Int16 = 0
    var parser: RequestParser

    /// Received bytes; those before `readIndex` are consumed.
    var input: [UInt8] = []
    var readIndex = 0

    /// Bytes to write; those before `outputIndex` are written.
    var output: [UInt8] = []
    var outputIndex = 0
    /// Whether to close once `output` is written (set with the response).
    var closeAfterOutput = false

    /// The request being handled (for its method and keep-alive decision).
    var head: RequestHead?
    /// The handler's task while `phase == .handling` (its slot lets go of it once it ends).
    var task: HandlerTaskSlot?
    /// The handler's pending answer while `phase == .handling`, once its task has ended parked.
    var pending: PendingResponse?

    /// When the current phase's clock started: idle since, request started, last write progress,
    /// or lingering since (monotonic nanoseconds).
    var phaseClock: UInt64
    /// When the first byte of the request being read arrived, if one has.
    var requestStarted: UInt64?
    /// Request bytes this connection holds as counted in the loop's total (input buffer plus the
    /// body being received, or the body length its head declared, whichever is larger).
    var accountedBytes = 0
    /// The `Content-Length` of the body being received, reserved in the total from its head on.
    var declaredBodyBytes = 0
    /// A connection accepted over the connection limit only to be answered `503` and closed; it
    /// does not count toward the limit.
    var isRefusal = false
    /// Whether the loop is inside `process` for this connection (so `flush` does not re-enter it).
    var isProcessing = false

    init(id: UInt64, fd: Int32, limits: RequestParser.Limits, now: UInt64) {
        self.id = id
        self.fd = fd
        self.parser = RequestParser(limits: limits)
        self.phaseClock = now
    }

    var hasUnreadInput: Bool { readIndex < input.count }
    /// Between requests with nothing buffered in either direction: safe to close without
    /// losing anything, so the first to go when the connection limit is reached.
    var isIdle: Bool {
        phase == .reading && !isRefusal && requestStarted == nil && !hasUnreadInput && !hasPendingOutput
            && parser.isAtRequestStart
    }
    /// The request bytes to count for this connection now.
    var bufferedRequestBytes: Int { input.count + max(declaredBodyBytes, parser.bodyBufferBytes) }
    var hasPendingOutput: Bool { outputIndex < output.count }

    /// Bytes of request state this connection keeps beyond its own object: the input buffer's
    /// capacity, the parser's retained head and body, and the head kept for framing the answer.
    /// A parked connection should keep none (``releaseRequestState()``); tests read it.
    var retainedRequestBytes: Int {
        input.capacity + parser.retainedBytes + (head.map(RequestParser.retainedBytes(of:)) ?? 0)
    }

    /// Frees what the request being handled no longer needs once its answer is parked: the
    /// parser's copy of the head and body, the input buffer's storage (when nothing pipelined is
    /// in it), and every part of the kept head but what frames the answer (method, keep-alive,
    /// HTTP version). A held long-poll can wait for minutes; with thousands held, these are most
    /// of the bytes the connection holds. The parser is reset again when the answer is written.
    func releaseRequestState() {
        parser.reset()
        if !hasUnreadInput {
            input = []
            readIndex = 0
        }
        if let kept = head {
            head = RequestHead(
                method: kept.method, target: "", minorVersion: kept.minorVersion, headers: [],
                keepAlive: kept.keepAlive, body: .none, expectsContinue: false)
        }
    }

    /// Drops consumed input so the buffer holds only what is still needed.
    func compactInput() {
        if readIndex == input.count {
            input.removeAll(keepingCapacity: input.capacity <= 16 * 1024)
            readIndex = 0
        } else if readIndex > 64 * 1024 || readIndex > input.count / 2 {
            input.removeFirst(readIndex)
            readIndex = 0
        }
    }
}
