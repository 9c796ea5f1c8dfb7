import EmulatorHTTP
public import JSONCore
import PubNubBase

/// A family of routes a ``FaultRule`` can be aimed at. Every route the emulator serves belongs to
/// exactly one family; the admin routes under `/_emulator/` belong to none, so no fault ever
/// reaches them.
public enum FaultFamily: String, Sendable, Hashable, CaseIterable {
    /// The DataSync REST API, `/v1/datasync/…`.
    case dataSync = "datasync"
    /// `GET|POST /publish/…` (fire included).
    case publish
    /// `GET /signal/…`.
    case signal
    /// `GET /v2/subscribe/…` (handshake and receive).
    case subscribe
    /// `GET /v2/presence/…`: heartbeat, leave, here-now, where-now, state.
    case presence
    /// `GET /v1/channel-registration/…`.
    case channelGroups = "channel-groups"
    /// Access Manager v3 grant and revoke, `/v3/pam/…`.
    case accessManager = "access-manager"
    /// `GET /time/0`.
    case time
    /// Message history: `/v2/history/…`, `/v3/history/…` (fetch, delete, message counts) and
    /// `/v3/history-with-actions/…`.
    case history
    /// `/v1/message-actions/…`: add, remove and list.
    case messageActions = "message-actions"
    /// File sharing: `/v1/files/…` (generate-upload-url, list, download redirect, delete,
    /// publish-file) and the emulator's storage routes `/_files/…`.
    case files
    /// Every family above.
    case any

    /// The family of a request path; nil for the admin routes and paths no service serves.
    static func of(path: String) -> FaultFamily? {
        if path.hasPrefix("/v1/datasync/") { return .dataSync }
        if path.hasPrefix("/publish/") { return .publish }
        if path.hasPrefix("/signal/") { return .signal }
        if path.hasPrefix("/v2/subscribe/") { return .subscribe }
        if path.hasPrefix("/v2/presence/") { return .presence }
        if path.hasPrefix("/v1/channel-registration/") { return .channelGroups }
        if path.hasPrefix("/v3/pam/") { return .accessManager }
        if path == "/time/0" { return .time }
        if path.hasPrefix("/v2/history/") || path.hasPrefix("/v3/history/")
            || path.hasPrefix("/v3/history-with-actions/")
        {
            return .history
        }
        if path.hasPrefix("/v1/message-actions/") { return .messageActions }
        if path.hasPrefix("/v1/files/") || path.hasPrefix("/_files/") { return .files }
        return nil
    }
}

/// What a matching request gets instead of (or on the way to) its normal answer.
public enum FaultAction: Sendable, Equatable {
    /// Answers this status at once. The body is the given JSON, or when nil the error envelope
    /// the family's service uses (DataSync's `{"errors":[…]}`, Access Manager's object, the
    /// pub/sub `{"status","message","error","service"}` object). With `retryAfter`, the answer
    /// carries `Retry-After` with that many seconds, as the service's `429` and `503` may.
    case status(Int, body: JSONValue?, retryAfter: Int? = nil)
    /// Answers `200` at once with the route's JSON content type and this text as the body, which
    /// need not be JSON (`{"t":` cut short when nil): a complete answer a client cannot read, as
    /// opposed to ``truncate(bytes:)``, whose connection closes mid-body.
    case malformed(String?)
    /// Waits this long on the emulator clock, then answers normally.
    case delay(Duration)
    /// Closes the connection without sending a byte.
    case reset
    /// Sends the normal answer's head (with its full `Content-Length`) and only the first
    /// `bytes` bytes of its body (half when nil), then closes the connection.
    case truncate(bytes: Int?)
    /// Holds the request without answering for this long on the emulator clock, then closes the
    /// connection without sending a byte.
    case blackhole(Duration)
}

/// One fault: what happens, to which requests, and how often.
///
/// A request matches when its route is in ``family`` and it fits every filter that is set. A rule
/// fires for ``count`` matching requests (one when neither a count nor a probability is given),
/// or, with ``probability``, on that share of matching requests (for ever, or until ``count``
/// firings). The first rule (oldest first) that matches and fires decides the request.
public struct FaultRule: Sendable, Equatable {
    /// What a matching request gets.
    public var action: FaultAction
    /// The route family; ``FaultFamily/any`` matches every route but the admin ones.
    public var family: FaultFamily
    /// The HTTP method (upper case), or nil for any.
    public var method: String?
    /// A prefix of the raw request path (before the query), or nil for any path.
    public var pathPrefix: String?
    /// A channel the request names (publish, signal, subscribe, presence, channel-group
    /// additions and removals, Access Manager's `channel` parameter, DataSync's
    /// `/channels/{id}`); a request that names no channel never matches.
    public var channel: String?
    /// How many times the rule fires; nil is once without a probability and without end with one.
    public var count: Int?
    /// The chance, in (0, 1], that a matching request fires the rule; nil is always.
    public var probability: Double?

    /// Creates a rule; see the properties for what each filter means.
    public init(
        _ action: FaultAction, family: FaultFamily = .any, method: String? = nil, pathPrefix: String? = nil,
        channel: String? = nil, count: Int? = nil, probability: Double? = nil
    ) {
        self.action = action
        self.family = family
        self.method = method?.uppercased()
        self.pathPrefix = pathPrefix
        self.channel = channel
        self.count = count
        self.probability = probability
    }
}

/// A rule in the registry, with its id and what is left of it.
public struct FaultEntry: Sendable, Equatable {
    /// The id the admin routes and ``Emulator/removeFault(id:)`` take.
    public var id: String
    /// The rule as added.
    public var rule: FaultRule
    /// How many more times it fires; nil when it has no end.
    public var remaining: Int?
    /// How many times it has fired.
    public var fired: Int
}

/// The faults the emulator's router injects, for every route family, queued from Swift
/// (``Emulator/addFault(_:)``) or over HTTP (`/_emulator/v1/faults`).
///
/// Probabilities draw from a seeded generator, so a test that sets the seed sees the same
/// sequence of firings every run.
final class FaultRegistry: Sendable {
    private struct State {
        var entries: [FaultEntry] = []
        var nextID = 1
        var random: SplitMix64
    }

    private let state: Locked<State>
    /// Requests a delay or blackhole holds right now.
    private let holding = Locked(0)
    let clock: EmulatorClock

    init(clock: EmulatorClock, seed: UInt64? = nil) {
        self.clock = clock
        var system = SystemRandomNumberGenerator()
        state = Locked(State(random: SplitMix64(seed: seed ?? system.next())))
    }

    /// How many requests a delay or blackhole holds right now.
    var heldCount: Int { holding.withLock { $0 } }

    /// Runs `body` counted in ``heldCount``.
    private func held<R>(_ body: () async -> R) async -> R {
        holding.withLock { $0 += 1 }
        defer { holding.withLock { $0 -= 1 } }
        return await body()
    }

    /// Restarts the probability draws from `seed`.
    func reseed(_ seed: UInt64) { state.withLock { $0.random = SplitMix64(seed: seed) } }

    /// Adds `rule` after the others and returns its entry.
    @discardableResult
    func add(_ rule: FaultRule) -> FaultEntry {
        state.withLock { state in
            let remaining = rule.count ?? (rule.probability == nil ? 1 : nil)
            let entry = FaultEntry(id: "f\(state.nextID)", rule: rule, remaining: remaining, fired: 0)
            state.nextID += 1
            state.entries.append(entry)
            return entry
        }
    }

    /// The rules still queued, oldest first.
    var entries: [FaultEntry] { state.withLock { $0.entries } }

    /// Removes the rule with `id`; false when there is none.
    func remove(id: String) -> Bool {
        state.withLock { state in
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return false }
            state.entries.remove(at: index)
            return true
        }
    }

    /// Removes every rule and returns how many there were.
    @discardableResult
    func clear() -> Int {
        state.withLock { state in
            defer { state.entries.removeAll() }
            return state.entries.count
        }
    }

    /// Whether some queued rule could match `request` (without drawing or consuming anything):
    /// the router then answers it on its asynchronous path, where ``take(_:)`` decides.
    func mightMatch(_ request: ServerRequest) -> Bool {
        state.withLock { state in
            guard !state.entries.isEmpty, let family = FaultFamily.of(path: request.rawPath) else { return false }
            return state.entries.contains { Self.matches($0.rule, request, family: family) }
        }
    }

    /// The fault `request` gets, consuming one firing of its rule, or nil.
    func take(_ request: ServerRequest) -> (action: FaultAction, family: FaultFamily)? {
        guard let family = FaultFamily.of(path: request.rawPath) else { return nil }
        return state.withLock { state in
            for index in state.entries.indices where Self.matches(state.entries[index].rule, request, family: family) {
                if let probability = state.entries[index].rule.probability,
                    state.random.nextUnitDouble() >= probability
                {
                    continue
                }
                let action = state.entries[index].rule.action
                state.entries[index].fired += 1
                if let remaining = state.entries[index].remaining {
                    if remaining <= 1 {
                        state.entries.remove(at: index)
                    } else {
                        state.entries[index].remaining = remaining - 1
                    }
                }
                return (action, family)
            }
            return nil
        }
    }

    private static func matches(_ rule: FaultRule, _ request: ServerRequest, family: FaultFamily) -> Bool {
        if rule.family != .any, rule.family != family { return false }
        if let method = rule.method, request.method.uppercased() != method.uppercased() { return false }
        if let prefix = rule.pathPrefix, !request.rawPath.hasPrefix(prefix) { return false }
        if let channel = rule.channel, !channels(of: request, family: family).contains(channel) { return false }
        return true
    }

    /// The channels a request names, read where its family puts them.
    static func channels(of request: ServerRequest, family: FaultFamily) -> [String] {
        let raw = PubSubWire.rawSegments(request.rawPath)
        let query = PercentDecoding.queryItems(request.rawQuery) ?? []
        func listed(_ names: String...) -> [String] {
            query.filter { names.contains($0.name) }.flatMap { $0.value.split(separator: ",").map(String.init) }
        }
        switch family {
        case .publish, .signal:
            // /publish/{pub}/{sub}/0/{channel}/0[/{message}]
            return raw.count > 4 ? PubSubWire.names(raw[4]) : []
        case .subscribe:
            // /v2/subscribe/{sub}/{channels}/0
            return raw.count > 3 ? PubSubWire.names(raw[3]) : []
        case .presence:
            // /v2/presence/sub-key/{sub}/channel/{channels}/…
            guard let at = raw.firstIndex(of: "channel"), at + 1 < raw.count else { return [] }
            return PubSubWire.names(raw[at + 1])
        case .channelGroups:
            return listed("add", "remove")
        case .accessManager:
            return listed("channel")
        case .dataSync:
            guard let at = raw.firstIndex(of: "channels"), at + 1 < raw.count else { return [] }
            return PercentDecoding.decode(raw[at + 1]).map { [$0] } ?? []
        case .history, .messageActions:
            // …/channel/{channels}[/…], or /v3/history/sub-key/{sub}/message-counts/{channels}
            guard let at = raw.firstIndex(where: { $0 == "channel" || $0 == "message-counts" }), at + 1 < raw.count
            else { return [] }
            return PubSubWire.names(raw[at + 1])
        case .files:
            // /v1/files/{sub}/channels/{channel}/…, /v1/files/publish-file/{pub}/{sub}/0/{channel}/…,
            // /_files/{upload|download}/{sub}/{channel}/…
            let index: Int
            if raw.first == "_files" {
                index = 3
            } else if raw.count > 2, raw[2] == "publish-file" {
                index = 6
            } else {
                index = 4
            }
            return index < raw.count ? PercentDecoding.decode(raw[index]).map { [$0] } ?? [] : []
        case .time, .any:
            return []
        }
    }

    /// Answers a request through `action`; `normal` produces the real answer when it is needed.
    func apply(
        _ action: FaultAction, family: FaultFamily, normal: () async -> ServerReply
    ) async -> ServerReply {
        switch action {
        case .status(let status, let body, let retryAfter):
            let answer = Self.statusAnswer(status, body: body, family: family)
            guard let retryAfter else { return .response(answer) }
            var withRetry = answer
            withRetry.headers.append((name: "Retry-After", value: String(retryAfter)))
            return .response(withRetry)
        case .malformed(let text):
            let body = Array((text ?? Self.defaultMalformedBody).utf8)
            let type = family == .dataSync ? "application/vnd.pubnub.objects+json" : "application/json"
            return .response(ServerResponse(status: 200, headers: [(name: "Content-Type", value: type)], body: body))
        case .delay(let duration):
            let waited = await held { (try? await clock.sleep(for: duration)) != nil }
            // When the client went away while waiting, nobody reads an answer.
            guard waited else { return .response(ServerResponse(status: 200).injecting(.dropConnection)) }
            return await normal()
        case .reset:
            return .response(ServerResponse(status: 200).injecting(.dropConnection))
        case .truncate(let bytes):
            // Applied to the normal answer whenever it comes, a parked one included.
            return await normal().map { response in
                let sent = min(bytes ?? response.body.count / 2, max(0, response.body.count - 1))
                return response.injecting(.truncateBody(sentBytes: sent))
            }
        case .blackhole(let duration):
            await held { try? await clock.sleep(for: duration) }
            return .response(ServerResponse(status: 200).injecting(.dropConnection))
        }
    }

    /// What a `malformed` fault sends when it names no text: the start of a subscribe answer,
    /// cut short, so a decoder cannot even find the cursor.
    static let defaultMalformedBody = #"{"t":"#

    static func statusAnswer(_ status: Int, body: JSONValue?, family: FaultFamily) -> ServerResponse {
        if let body { return PubSubWire.json(status, body).withContentType("application/json") }
        let message = reason(status)
        switch family {
        case .dataSync:
            let code: APIError.Code
            switch status {
            case 400: code = .invalidValue
            case 404: code = .notFound
            case 409: code = .conflict
            case 412: code = .preconditionFailed
            default: code = .internalError
            }
            return DataSyncResponse.error(APIError(status: status, code: code, message: message))
        case .accessManager:
            return AccessWire.classic(status, message)
        default:
            return PubSubWire.serviceError(status, message, service: "Balancer")
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 429: "Too many requests."
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Injected fault"
        }
    }
}

extension ServerResponse {
    fileprivate func withContentType(_ type: String) -> ServerResponse {
        var copy = self
        copy.headers.removeAll { $0.name.lowercased() == "content-type" }
        copy.headers.append((name: "Content-Type", value: type))
        return copy
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same draws on every platform.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A draw in [0, 1) with 53 bits of precision.
    mutating func nextUnitDouble() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}
