import Auth
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubBase
import PubNubCore
import Realtime
import Transport

/// A fake PubNub service: records every request, answers presence calls with 200 (or what the
/// test set), `/time/0` probes with a timetoken (or what the test set), and answers
/// subscribe requests from a script; with the script empty a subscribe request is held (a
/// long-poll) until the test pushes an answer or the request is cancelled.
final class FakeService: HTTPClient, Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>
    }

    private struct State {
        var requests: [HTTPRequest] = []
        var script: [Result<HTTPResponse, TransportError>] = []
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var cancelled = 0
        var presenceAnswer: Result<HTTPResponse, TransportError> = .success(
            HTTPResponse(status: 200, body: Array(#"{"status":200,"message":"OK"}"#.utf8)))
        var timeAnswer: Result<HTTPResponse, TransportError> = .success(
            HTTPResponse(status: 200, body: Array("[17000000000000000]".utf8)))
    }

    private let state = Locked(State())

    var requests: [HTTPRequest] { state.withLock { $0.requests } }
    var subscribeRequests: [HTTPRequest] { requests.filter { $0.path.hasPrefix("/v2/subscribe/") } }
    var presenceRequests: [HTTPRequest] { requests.filter { $0.path.hasPrefix("/v2/presence/") } }
    var timeRequests: [HTTPRequest] { requests.filter { $0.path == "/time/0" } }
    var cancelledCount: Int { state.withLock { $0.cancelled } }
    var heldCount: Int { state.withLock { $0.waiters.count } }

    func setPresenceAnswer(_ response: HTTPResponse) { state.withLock { $0.presenceAnswer = .success(response) } }
    func setPresenceAnswer(_ result: Result<HTTPResponse, TransportError>) {
        state.withLock { $0.presenceAnswer = result }
    }
    func setTimeAnswer(_ result: Result<HTTPResponse, TransportError>) { state.withLock { $0.timeAnswer = result } }

    /// Answers the held subscribe request, or the next one.
    func push(_ result: Result<HTTPResponse, TransportError>) {
        let waiter: Waiter? = state.withLock { state in
            if state.waiters.isEmpty {
                state.script.append(result)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.continuation.resume(returning: result)
    }

    func push(_ response: HTTPResponse) { push(.success(response)) }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        enum Step {
            case answer(Result<HTTPResponse, TransportError>)
            case hold(UInt64)
        }
        let step: Step = state.withLock { state in
            state.requests.append(request)
            if request.path.hasPrefix("/v2/presence/") { return .answer(state.presenceAnswer) }
            if request.path == "/time/0" { return .answer(state.timeAnswer) }
            if !state.script.isEmpty { return .answer(state.script.removeFirst()) }
            state.nextID += 1
            return .hold(state.nextID)
        }
        switch step {
        case .answer(let result):
            return try result.get()
        case .hold(let id):
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let cancelledAlready = state.withLock { state in
                        if Task.isCancelled { return true }
                        state.waiters.append(Waiter(id: id, continuation: continuation))
                        return false
                    }
                    if cancelledAlready {
                        continuation.resume(returning: .failure(TransportError(code: .cancelled, message: "cancelled")))
                    }
                }
            } onCancel: {
                let waiter: Waiter? = state.withLock { state in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    state.cancelled += 1
                    return state.waiters.remove(at: index)
                }
                waiter?.continuation.resume(returning: .failure(TransportError(code: .cancelled, message: "cancelled")))
            }
            return try result.get()
        }
    }

    /// Returns once at least `count` subscribe requests arrived (yielding between checks).
    @discardableResult
    func waitForSubscribes(_ count: Int) async -> Bool {
        await eventually { self.subscribeRequests.count >= count }
    }

    /// Returns once at least `count` presence requests arrived.
    @discardableResult
    func waitForPresence(_ count: Int) async -> Bool {
        await eventually { self.presenceRequests.count >= count }
    }

    /// Returns once a subscribe request is being held.
    @discardableResult
    func waitForHeld(_ count: Int = 1) async -> Bool {
        await eventually { self.heldCount >= count }
    }
}

/// Collects what listeners receive.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])
    var all: [Value] { values.withLock { $0 } }
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    @discardableResult
    func waitFor(_ count: Int) async -> Bool { await eventually { self.all.count >= count } }
}

enum Answer {
    /// A subscribe answer with cursor `tt`/`r` and envelopes `messages`.
    static func subscribe(_ tt: String, region: Int = 1, _ messages: [JSONValue] = []) -> HTTPResponse {
        let body: JSONValue = ["t": ["t": .string(tt), "r": .int(Int64(region))], "m": .array(messages)]
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "text/javascript"], body: (try? body.jsonBytes()) ?? [])
    }

    static func status(_ code: Int, _ body: JSONValue = [:], headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        HTTPResponse(status: code, headers: headers, body: (try? body.jsonBytes()) ?? [])
    }

    /// A message envelope.
    static func message(
        _ channel: String, _ payload: JSONValue, tt: String = "17000000000000001", match: String? = nil,
        type: Int? = nil, publisher: String = "u2"
    ) -> JSONValue {
        var object: [String: JSONValue] = [
            "a": "1", "f": 0, "i": .string(publisher), "p": ["t": .string(tt), "r": 1], "k": "demo",
            "c": .string(channel), "d": payload,
        ]
        if let match { object["b"] = .string(match) }
        if let type { object["e"] = .int(Int64(type)) }
        return .object(object)
    }
}

extension HTTPRequest {
    /// The query as `name=value` strings in order (a bare name when the value is nil).
    var queryList: [String] { queryItems.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name } }
}

/// A client over `service` with a manual clock, reconnection without jitter, no heartbeats and no
/// reconnection probes (tests of recovery turn them on).
func makeClient(
    _ service: FakeService, clock: ManualClock, token: String? = nil,
    configure: (inout PubNubConfiguration) -> Void = { _ in }
) -> PubNub {
    var configuration = PubNubConfiguration(
        publishKey: nil, subscribeKey: "demo", userId: "me", authToken: token, origin: "127.0.0.1:9",
        useSecureConnections: false, transport: service, clock: clock)
    configuration.subscribeReconnectionPolicy = .exponential(maximumJitter: .zero)
    configuration.heartbeatInterval = .zero
    configuration.reconnectionProbeInterval = nil
    configure(&configuration)
    return PubNub(configuration: configuration)
}

/// A new ``FakeService``, a manual clock and a client over both (as ``makeClient(_:clock:token:configure:)``
/// makes it): what most loop tests start from.
func scriptedClient(
    token: String? = nil, configure: (inout PubNubConfiguration) -> Void = { _ in }
) -> (service: FakeService, clock: ManualClock, pubnub: PubNub) {
    let service = FakeService()
    let clock = ManualClock()
    return (service, clock, makeClient(service, clock: clock, token: token, configure: configure))
}

/// A subscribe state machine subscribed to `a` and receiving from 100@7 (no jitter by default).
func receivingFrom100(
    _ settings: SubscribeStateMachine.Settings = SubscribeStateMachine.Settings(
        policy: .exponential(maximumJitter: .zero))
) -> SubscribeStateMachine {
    var machine = SubscribeStateMachine(settings: settings)
    _ = machine.handle(.subscriptionChanged(channels: ["a"], groups: [], timetoken: nil))
    _ = machine.handle(
        .responseReceived(
            id: machine.generation,
            response: SubscribeResponse(cursor: SubscribeCursor(timetoken: 100, region: 7), envelopes: [])))
    return machine
}
