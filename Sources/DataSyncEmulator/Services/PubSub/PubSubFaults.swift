import EmulatorHTTP
import JSONCore
import PubNubBase

/// A group of pub/sub routes a fault can be aimed at.
public struct PubSubRoute: RawRepresentable, Sendable, Hashable {
    /// The route name (`publish`, `presence`…). These routes are for
    /// ``Emulator/injectFault(_:on:count:)`` only; faults added over HTTP (`/_emulator/v1/faults`)
    /// or with ``Emulator/addFault(_:)`` name a ``FaultFamily`` instead.
    public var rawValue: String

    /// Creates a route from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `GET /time/0`.
    public static let time = PubSubRoute(rawValue: "time")
    /// `GET|POST /publish/…` (fire included).
    public static let publish = PubSubRoute(rawValue: "publish")
    /// `GET /signal/…`.
    public static let signal = PubSubRoute(rawValue: "signal")
    /// `GET /v2/subscribe/…` (handshake and receive).
    public static let subscribe = PubSubRoute(rawValue: "subscribe")
    /// `GET /v1/channel-registration/…`.
    public static let channelGroups = PubSubRoute(rawValue: "channel-groups")
    /// `GET /v2/presence/…` (heartbeat, leave, state, here now, where now).
    public static let presence = PubSubRoute(rawValue: "presence")
    /// Every pub/sub and presence route.
    public static let any = PubSubRoute(rawValue: "any")
}

/// A fault the pub/sub services inject instead of (or before) their normal answer, so an SDK's
/// retry and reconnection logic can be tested.
public enum PubSubFault: Sendable, Hashable {
    /// Waits this long on the emulator clock, then answers normally.
    case delay(Duration)
    /// Closes the connection before any response byte.
    case resetBeforeBody
    /// Sends the normal answer's head and half its body, then closes the connection.
    case resetDuringBody
    /// Answers with this status (500, 502, 503…) and a JSON service-error body.
    case status(Int)
    /// Answers `403` with the Access Manager body.
    case forbidden
    /// Answers `429` with `Retry-After: seconds`.
    case tooManyRequests(retryAfterSeconds: Int)
    /// Answers `200` with a body that is not JSON.
    case malformedJSON
    /// Answers `200` with the normal answer's JSON cut in half (correctly framed).
    case truncatedJSON
}

/// The faults waiting to fire, per route, each for a number of requests.
final class FaultPlan: Sendable {
    private struct Rule {
        var route: PubSubRoute
        var fault: PubSubFault
        var remaining: Int
    }

    private let rules = Locked<[Rule]>([])

    /// Adds `fault` for the next `count` requests on `route`, after the rules already queued.
    func add(_ fault: PubSubFault, on route: PubSubRoute, count: Int) {
        guard count > 0 else { return }
        rules.withLock { $0.append(Rule(route: route, fault: fault, remaining: count)) }
    }

    /// Removes every queued fault.
    func clear() { rules.withLock { $0.removeAll() } }

    /// The fault for this request on `route`, consuming one use, or nil.
    func take(_ route: PubSubRoute) -> PubSubFault? {
        rules.withLock { rules in
            guard let index = rules.firstIndex(where: { $0.route == route || $0.route == .any }) else { return nil }
            let fault = rules[index].fault
            rules[index].remaining -= 1
            if rules[index].remaining <= 0 { rules.remove(at: index) }
            return fault
        }
    }

    /// Answers `request` through `fault`; `normal` produces the real answer when the fault needs it.
    /// A fault that changes the real answer changes a parked one too, when it is completed.
    static func apply(
        _ fault: PubSubFault, clock: EmulatorClock, normal: () async -> ServerReply
    ) async -> ServerReply {
        switch fault {
        case .delay(let duration):
            do {
                try await clock.sleep(for: duration)
            } catch {
                return .response(PubSubWire.serviceError(503, "Service Unavailable", service: "Balancer"))
            }
            return await normal()
        case .resetBeforeBody:
            return .response(ServerResponse(status: 200).injecting(.dropConnection))
        case .resetDuringBody:
            return await normal().map { $0.injecting(.truncateBody(sentBytes: $0.body.count / 2)) }
        case .status(let status):
            return .response(
                PubSubWire.serviceError(
                    status, status == 503 ? "Service Unavailable" : "Internal Server Error",
                    service: "Balancer"))
        case .forbidden:
            return .response(
                PubSubWire.json(
                    403,
                    [
                        "message": "Forbidden", "payload": ["channels": [], "channel-groups": []], "error": true,
                        "service": "Access Manager", "status": 403,
                    ]))
        case .tooManyRequests(let seconds):
            return .response(
                PubSubWire.json(
                    429, ["status": 429, "message": "Too many requests.", "error": true, "service": "Balancer"],
                    headers: [(name: "Retry-After", value: String(max(0, seconds)))]))
        case .malformedJSON:
            return .response(PubSubWire.bytes(200, Array("<html>not json".utf8)))
        case .truncatedJSON:
            return await normal().map { response in
                var response = response
                response.body = Array(response.body.prefix(response.body.count / 2))
                return response
            }
        }
    }
}
