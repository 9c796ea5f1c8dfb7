import EmulatorHTTP
import Foundation
import JSONCore

/// The emulator's own routes under the reserved prefix `/_emulator` (Documentation/Emulator.md,
/// "Admin routes" and "Web console"): the web console's files, and the admin API (`/v1/…`) to
/// reset, export and import state, read and move the clock, queue faults, and feed the console.
///
/// The router asks this service first, and no PubNub or DataSync path starts with `/_emulator`
/// (subscribe keys only ever appear after a service's own prefix), so no keyset path can reach an
/// admin route and no admin route can be mistaken for a keyset.
struct AdminService: EmulatorService {
    /// The reserved prefix.
    static let prefix = "/_emulator"
    /// `prefix` and a slash: the paths below it (built once, not per request).
    private static let prefixSlash = prefix + "/"
    /// Where the console is served.
    static let consolePath = prefix + "/console/"

    let admin: EmulatorAdmin
    /// The faults `/v1/faults` lists, adds and removes.
    let faults: FaultRegistry
    /// The console's token helper (`/v1/keysets/{sub}/tokens`).
    let tokens: AdminTokens

    func claims(_ request: ServerRequest) -> Bool {
        let path = request.rawPath
        return path.hasPrefix(Self.prefix) && (path == Self.prefix || path.hasPrefix(Self.prefixSlash))
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        let rest = request.rawPath.dropFirst(Self.prefix.count)
        var segments: [String] = []
        for part in rest.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            guard let decoded = PercentDecoding.decode(part) else {
                return AdminWire.error(400, "the path holds a broken percent escape")
            }
            // `.` and `..` (sent as is, or escaped as `%2E`) name no keyset or route: a browser
            // would have resolved them as path steps, so answering them would act on another route.
            guard decoded != ".", decoded != ".." else {
                return AdminWire.error(400, "a path segment cannot be \"\(decoded)\" (it names no keyset or route)")
            }
            segments.append(decoded)
        }
        let method = request.method.uppercased()
        switch segments.first {
        case nil, "":
            guard segments.count <= 1 else { break }
            return Self.redirect(to: Self.consolePath)
        case "console":
            if segments.count == 1 { return Self.redirect(to: Self.consolePath) }
            guard method == "GET" else { return AdminWire.methodNotAllowed(method, allow: ["GET"]) }
            guard segments.count == 2, let asset = ConsoleAssets.asset(named: segments[1]) else { break }
            return asset
        case "v1":
            if let refusal = admin.access.refusal(for: request) { return refusal }
            guard let query = PercentDecoding.queryItems(request.rawQuery) else {
                return AdminWire.error(400, "the query holds a broken percent escape")
            }
            return await api(Array(segments.dropFirst()), method: method, query: query, request: request)
        default:
            break
        }
        return AdminWire.error(404, "no such admin route: \(request.rawPath)")
    }

    private static func redirect(to location: String) -> ServerResponse {
        ServerResponse(
            status: 302, headers: [(name: "Location", value: location), (name: "Content-Type", value: "text/plain")],
            body: Array("See \(location)\n".utf8))
    }

    // MARK: The admin API

    private func api(
        _ path: [String], method: String, query: [(name: String, value: String)], request: ServerRequest
    ) async -> ServerResponse {
        func value(_ name: String) -> String? { query.last { $0.name == name }?.value }
        func only(_ allowed: String...) -> ServerResponse? {
            allowed.contains(method) ? nil : AdminWire.methodNotAllowed(method, allow: allowed)
        }
        switch path {
        case ["keysets"]:
            if let refusal = only("GET") { return refusal }
            return AdminWire.json(await admin.keysets())
        case ["reset"]:
            if let refusal = only("POST") { return refusal }
            return AdminWire.json(await admin.resetAll())
        case ["export"]:
            if let refusal = only("GET") { return refusal }
            let keys = query.filter { $0.name == "keyset" }.map(\.value)
            return AdminWire.json(await admin.export(keys.isEmpty ? nil : keys))
        case ["import"]:
            if let refusal = only("POST") { return refusal }
            let document: JSONValue
            do {
                document = try JSONValue(parsing: request.body)
            } catch {
                return AdminWire.error(400, "the body is not a JSON seed document: \(error)")
            }
            do {
                return AdminWire.json(try await admin.importState(document))
            } catch {
                return AdminWire.error(400, error.message)
            }
        case ["clock"]:
            if let refusal = only("GET") { return refusal }
            return AdminWire.json(admin.clockJSON())
        case ["clock", "advance"]:
            if let refusal = only("POST") { return refusal }
            switch Self.seconds(query: query, body: request.body) {
            case .success(let seconds):
                let target = admin.clock.now.date.addingTimeInterval(seconds)
                guard Self.settableTimes.contains(target) else {
                    return AdminWire.error(
                        400,
                        "the emulator's clock runs from 1970-01-01T00:00:00Z up to 2200-01-01T00:00:00Z; moving it by "
                            + "\(seconds) s would leave that range")
                }
                await admin.advance(bySeconds: seconds)
                return AdminWire.json(admin.clockJSON())
            case .failure(let refusal):
                return refusal.response
            }
        case ["clock", "set"]:
            if let refusal = only("POST") { return refusal }
            let body = request.body.isEmpty ? nil : try? JSONValue(parsing: request.body)
            guard let text = value("time") ?? body?["time"]?.stringValue, let date = ISO8601Timestamp.date(from: text)
            else {
                return AdminWire.error(
                    400, #"give the instant as ?time=2026-01-01T00:00:00Z or {"time":"2026-01-01T00:00:00Z"}"#)
            }
            // Presence expiries, TTLs and long-poll deadlines are instants a little after now; near
            // the end of 64-bit nanoseconds (2262) they would all saturate to one instant and expire
            // at once, so the route keeps the clock where they still work.
            guard Self.settableTimes.contains(date) else {
                return AdminWire.error(
                    400,
                    "the emulator's clock can be set from 1970-01-01T00:00:00Z up to 2200-01-01T00:00:00Z, not \(text)")
            }
            await admin.setTime(date)
            return AdminWire.json(admin.clockJSON())
        case ["requests"]:
            if let refusal = only("GET") { return refusal }
            return AdminWire.json(
                await admin.requests(
                    after: value("after").flatMap { UInt64($0) }, limit: Self.limit(value("limit"), default: 200),
                    wait: Self.wait(value("wait"))))
        case ["events"]:
            if let refusal = only("GET") { return refusal }
            return AdminWire.json(
                await admin.events(
                    subscribeKey: value("keyset"), after: value("after").flatMap { UInt64($0) },
                    messagesAfter: value("messagesAfter").flatMap { UInt64($0) },
                    limit: Self.limit(value("limit"), default: 100), wait: Self.wait(value("wait"))))
        case ["faults"]:
            if let refusal = only("GET", "POST", "DELETE") { return refusal }
            return faultsRoute(method: method, body: request.body)
        case let rest where rest.count == 2 && rest[0] == "faults":
            if let refusal = only("DELETE") { return refusal }
            guard faults.remove(id: rest[1]) else {
                return AdminWire.error(404, "no fault \(rest[1]) (it fired its last time, or was removed)")
            }
            return AdminWire.json(["removed": .string(rest[1])])
        default:
            break
        }
        if path.count >= 3, path[0] == "keysets", !path[1].isEmpty {
            let subscribeKey = path[1]
            switch Array(path.dropFirst(2)) {
            case ["reset"]:
                if let refusal = only("POST") { return refusal }
                return AdminWire.json(await admin.reset(subscribeKey))
            case ["presence"]:
                if let refusal = only("GET") { return refusal }
                return AdminWire.json(await admin.bus.presenceSnapshot(subscribeKey))
            case ["messages"]:
                if let refusal = only("GET") { return refusal }
                return AdminWire.json(
                    await admin.bus.historyConsoleJSON(
                        subscribeKey, channel: value("channel"), limit: Self.limit(value("limit"), default: 100)))
            case ["tokens"]:
                if let refusal = only("POST") { return refusal }
                return tokens.mint(subscribeKey: subscribeKey, body: request.body)
            case ["tokens", "parse"]:
                if let refusal = only("POST") { return refusal }
                return tokens.parse(subscribeKey: subscribeKey, body: request.body)
            case ["push"]:
                if let refusal = only("GET") { return refusal }
                return AdminWire.json(await admin.bus.pushConsoleJSON(subscribeKey))
            case let rest where rest.count == 3 && rest[0] == "history" && !rest[2].isEmpty:
                if let refusal = only("GET") { return refusal }
                guard let collection = ObjectCollection.all.first(where: { $0.name == rest[1] }) else {
                    return AdminWire.error(
                        404, "no collection \(rest[1]): users, channels, entities, memberships, relationships")
                }
                return AdminWire.json(admin.history(subscribeKey: subscribeKey, collection: collection, id: rest[2]))
            default:
                break
            }
        }
        return AdminWire.error(404, "no such admin route: \(request.rawPath)")
    }

    /// `GET` lists the queued faults, `POST` adds one (answering its entry with `201`), `DELETE`
    /// removes them all.
    private func faultsRoute(method: String, body: [UInt8]) -> ServerResponse {
        switch method {
        case "GET":
            return AdminWire.json(["faults": .array(faults.entries.map(\.json))])
        case "DELETE":
            return AdminWire.json(["cleared": .int(Int64(faults.clear()))])
        default:
            let json: JSONValue
            do {
                json = try JSONValue(parsing: body)
            } catch {
                return AdminWire.error(400, "body: not JSON (\(error)); send one fault such as {\"kind\":\"reset\"}")
            }
            do {
                return AdminWire.json(faults.add(try FaultRule(json: json)).json, status: 201)
            } catch {
                return AdminWire.error(400, error.description)
            }
        }
    }

    private struct Refusal: Error {
        let response: ServerResponse
    }

    /// The step of a clock advance: exactly one of `seconds`, `minutes`, `hours`, `days`, in the
    /// query or in a JSON body.
    private static func seconds(query: [(name: String, value: String)], body: [UInt8]) -> Result<Double, Refusal> {
        let units: [(String, Double)] = [("seconds", 1), ("minutes", 60), ("hours", 3_600), ("days", 86_400)]
        let json = body.isEmpty ? nil : try? JSONValue(parsing: body)
        var steps: [Double] = []
        for (name, factor) in units {
            if let text = query.last(where: { $0.name == name })?.value {
                guard let number = Double(text), number.isFinite else {
                    return .failure(Refusal(response: AdminWire.error(400, "\(name) must be a number")))
                }
                steps.append(number * factor)
            }
            if let number = json?[name]?.doubleValue { steps.append(number * factor) }
        }
        guard steps.count == 1, let step = steps.first else {
            return .failure(
                Refusal(
                    response: AdminWire.error(
                        400, #"give exactly one of seconds, minutes, hours or days: ?days=31 or {"seconds":300}"#)))
        }
        return .success(step)
    }

    /// The instants `clock/set` and `clock/advance` may reach: from the Unix epoch to
    /// 2200-01-01T00:00:00Z.
    static let settableTimes = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 7_258_118_400)

    private static func limit(_ text: String?, default value: Int) -> Int {
        min(1_000, max(1, text.flatMap { Int($0) } ?? value))
    }

    /// `wait` in seconds, at most 30 (a browser's connection must come back well before the HTTP
    /// server's idle timeout).
    private static func wait(_ text: String?) -> Duration {
        guard let seconds = text.flatMap({ Double($0) }), seconds.isFinite, seconds > 0 else { return .zero }
        return .milliseconds(Int64(min(30, seconds) * 1000))
    }
}
