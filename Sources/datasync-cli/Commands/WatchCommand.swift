import ArgumentParsing
import Dispatch
import Foundation
import Realtime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `watch`: subscribes and prints every event as one line until Ctrl-C.
enum WatchCommand {
    static var command: Command<CommandAction> {
        Command(
            name: "watch", summary: "subscribes to channels or DataSync objects and prints every event, one per line",
            discussion:
                "A DataSync object's events come on the channel named after its id, so `watch alice` shows every "
                + "change to the user alice and to her memberships. Each event is one line: readable on a terminal, "
                + "NDJSON when standard output is piped (--format chooses). Subscription statuses go to stderr. "
                + "Ctrl-C (SIGINT) or SIGTERM unsubscribes and exits 0.",
            options: [
                .value(
                    "--projection", "NAME",
                    help: "watch this projection of each object (its __NAME__<id> channel), not the base one"),
                .flag(
                    "--presence", help: "also receive presence events (join, leave, timeout, state-change, interval)"),
                .repeated(
                    "--group", "GROUP", aliases: ["--channel-group"], help: "also watch a channel group (repeatable)"),
                .value("--timetoken", "TT", help: "catch up from this timetoken instead of starting now"),
                .value(
                    "--format", "FORMAT", help: "human or ndjson (default: human on a terminal, ndjson when piped)",
                    choices: ["human", "ndjson"]),
                .value("--count", "N", help: "stop (exit 0) after N events"),
            ],
            positionals: [
                PositionalSpec(
                    name: "TARGET", help: "channel names or object ids; a.* watches every channel under a.",
                    required: false, variadic: true)
            ],
            examples: [
                "datasync watch alice room-1", "datasync watch swift-101 --projection stats",
                "datasync watch room-1 --presence --format ndjson | jq .type",
            ],
            action: { invocation in try await run(invocation) })
    }

    private enum Stop: Sendable {
        case signal(Int32)
        case count
        case failed(String)
    }

    static func run(_ invocation: Invocation) async throws -> Int32 {
        let arguments = invocation.arguments
        let targets = arguments.positionals
        let groups = arguments.values("--group")
        guard !targets.isEmpty || !groups.isEmpty else {
            throw UsageError(
                "'\(arguments.commandName)' needs at least one TARGET (a channel or an object id) or --group",
                command: arguments.commandName, usage: "usage: datasync watch TARGET... [options]")
        }
        let limit = try arguments.int("--count", in: 1...Int.max)
        let timetoken: Timetoken? = try arguments.value("--timetoken").map { text throws(UsageError) in
            guard let value = Timetoken(text) else {
                throw UsageError(
                    "option '--timetoken' takes a timetoken (17 digits), not '\(text)'", command: arguments.commandName)
            }
            return value
        }
        let human = arguments.value("--format").map { $0 == "human" } ?? invocation.console.stdoutIsTerminal
        let leaves = LeaveTracker()
        let pubnub = try invocation.client(middlewares: [leaves])
        let options = SubscriptionOptions(receivePresenceEvents: arguments.flag("--presence"))
        var subscriptions: [Subscription] = []
        for target in targets {
            if let projection = arguments.value("--projection") {
                do throws(PubNubError) {
                    subscriptions.append(
                        try pubnub.dataSyncEntity(target).subscription(projection: projection, options: options))
                } catch {
                    throw UsageError("--projection \(projection): \(error.message)", command: arguments.commandName)
                }
            } else {
                subscriptions.append(pubnub.channel(target).subscription(options: options))
            }
        }
        for group in groups { subscriptions.append(pubnub.channelGroup(group).subscription(options: options)) }

        // Ctrl-C and SIGTERM become stream elements on a dispatch queue (never a handler that
        // runs in the middle of other code); their default action is turned off first.
        let (stops, stop) = AsyncStream<Stop>.makeStream(bufferingPolicy: .unbounded)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let queue = DispatchQueue(label: "datasync.watch.signals")
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { @Sendable in stop.yield(.signal(number)) }
            source.resume()
            return source
        }
        defer { for source in sources { source.cancel() } }

        let console = invocation.console
        let events = pubnub.events()
        let statuses = pubnub.statuses()
        let (unsubscribed, unsubscribedSignal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let printer = Task {
            var seen = 0
            for await event in events {
                console.out(human ? EventText.human(event) : JSONText.compact(EventText.json(event)))
                seen += 1
                if let limit, seen >= limit {
                    stop.yield(.count)
                    break
                }
            }
        }
        let statusReader = Task {
            for await status in statuses {
                console.err("datasync: status: " + EventText.status(status))
                if status.category == .disconnected, status.subscribedChannels.isEmpty,
                    status.subscribedChannelGroups.isEmpty
                {
                    unsubscribedSignal.yield()
                }
                if status.isError, !status.willAutomaticallyRetry, status.operation == .subscribe {
                    stop.yield(.failed(EventText.status(status)))
                }
            }
        }
        for subscription in subscriptions {
            if let timetoken { subscription.subscribe(with: timetoken) } else { subscription.subscribe() }
        }

        var reason: Stop = .failed("stopped")
        for await next in stops {
            reason = next
            break
        }
        printer.cancel()
        pubnub.unsubscribeAll()
        // Give the loop a moment to say goodbye, bounded: the `disconnected` status, then the
        // answer to the leave call (which the loop sends on its own, without a status).
        let waiter = Task {
            for await _ in unsubscribed { break }
            await leaves.waitForLeave()
        }
        let timeout = Task {
            try? await Task.sleep(for: .seconds(2))
            waiter.cancel()
        }
        await waiter.value
        timeout.cancel()
        statusReader.cancel()
        withExtendedLifetime(subscriptions) {}
        switch reason {
        case .signal(let number):
            invocation.note("watch stopped (\(number == SIGINT ? "SIGINT" : "SIGTERM"))")
            return ExitStatus.ok
        case .count:
            return ExitStatus.ok
        case .failed(let why):
            console.err("datasync: watch: the subscription failed: \(why)")
            return ExitStatus.serviceError
        }
    }
}

/// Sees the leave call the subscribe loop sends after an unsubscribe, so the process does not
/// exit before the service has heard it (other clients then see a `leave`, not a `timeout`).
final class LeaveTracker: HTTPMiddleware, @unchecked Sendable {
    // @unchecked Sendable: `leavesAnswered` is only read or written under `lock`, in synchronous
    // closures, so never across an await. NSLock rather than the SDK's `Locked`: this executable
    // uses the SDK's public API only, as an app would.
    private let lock = NSLock()
    private var leavesAnswered = 0

    func intercept(
        _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard request.path.hasSuffix("/leave") else { return try await next(request) }
        defer { lock.withLock { leavesAnswered += 1 } }
        return try await next(request)
    }

    /// Returns once a leave call has been answered (or failed), or when the task is cancelled.
    func waitForLeave() async {
        while lock.withLock({ leavesAnswered == 0 }) {
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                return
            }
        }
    }
}

/// Events and statuses as text.
enum EventText {
    // MARK: NDJSON

    static func json(_ event: PubNubEvent) -> JSONValue {
        var out: [String: JSONValue] = [
            "channel": .string(event.channel), "timetoken": .string(String(event.timetoken)),
        ]
        func set(_ key: String, _ value: JSONValue?) {
            if let value { out[key] = value }
        }
        func set(_ key: String, _ value: String?) {
            if let value { out[key] = .string(value) }
        }
        switch event {
        case .message(let message), .signal(let message):
            if case .signal = event { out["type"] = "signal" } else { out["type"] = "message" }
            set("subscription", message.subscription)
            set("publisher", message.publisher)
            out["payload"] = message.payload
            set("meta", message.metadata)
            set("customMessageType", message.customMessageType)
        case .presence(let presence):
            out["type"] = "presence"
            out["action"] = .string(presence.event.rawValue)
            set("subscription", presence.subscription)
            set("userId", presence.uuid)
            set("occupancy", presence.occupancy.map { JSONValue($0) })
            set("timestamp", presence.timestamp.map { JSONValue($0) })
            set("state", presence.state)
            if !presence.join.isEmpty { out["join"] = .array(presence.join.map { JSONValue.string($0) }) }
            if !presence.leave.isEmpty { out["leave"] = .array(presence.leave.map { JSONValue.string($0) }) }
            if !presence.timeout.isEmpty { out["timeout"] = .array(presence.timeout.map { JSONValue.string($0) }) }
            if presence.hereNowRefresh { out["hereNowRefresh"] = true }
        case .messageAction(let action):
            out["type"] = "messageAction"
            out["event"] = .string(action.event)
            set("subscription", action.subscription)
            out["actionType"] = .string(action.type)
            out["value"] = .string(action.value)
            out["messageTimetoken"] = .string(String(action.messageTimetoken))
            out["actionTimetoken"] = .string(String(action.actionTimetoken))
            set("userId", action.uuid)
        case .appContext(let context):
            out["type"] = "appContext"
            out["event"] = .string(context.event)
            out["objectType"] = .string(context.type)
            set("subscription", context.subscription)
            out["data"] = context.data
        case .file(let file):
            out["type"] = "file"
            set("subscription", file.subscription)
            set("publisher", file.publisher)
            set("message", file.message)
            out["fileId"] = .string(file.fileId)
            out["fileName"] = .string(file.fileName)
            set("size", file.size.map { JSONValue($0) })
            set("mimeType", file.mimeType)
            set("meta", file.metadata)
            set("customMessageType", file.customMessageType)
        case .dataSync(let change):
            out["type"] = "dataSync"
            out["change"] = .string(changeName(change.change))
            out["kind"] = .string(change.kind.rawValue)
            out["projection"] = .string(change.projection)
            set("subscription", change.subscription)
            set("id", change.objectId)
            set("className", change.className)
            set("classLevel", change.classLevel?.rawValue)
            set("classVersion", change.classVersion.map { JSONValue($0) })
            set("version", change.version)
            set("object", object(change))
            if let removed = change.removed {
                var gone: [String: JSONValue] = ["id": .string(removed.id)]
                if let deletedAt = removed.deletedAt { gone["deletedAt"] = .string(isoDate(deletedAt)) }
                if let name = removed.className { gone["className"] = .string(name) }
                if let level = removed.classLevel { gone["classLevel"] = .string(level.rawValue) }
                if let version = removed.classVersion { gone["classVersion"] = JSONValue(version) }
                if let a = removed.entityAId { gone["entityAId"] = .string(a) }
                if let b = removed.entityBId { gone["entityBId"] = .string(b) }
                out["removed"] = .object(gone)
            }
            if case .unknown(let unknown) = change.change {
                out["unknown"] = [
                    "reason": .string(unknown.reason), "metadata": unknown.metadata, "payload": unknown.payload,
                ]
            }
        case .unknown(let raw):
            out["type"] = "unknown"
            set("eventType", raw.type.map { JSONValue($0) })
            set("subscription", raw.subscription)
            set("publisher", raw.publisher)
            out["payload"] = raw.payload
            set("meta", raw.metadata)
            set("customMessageType", raw.customMessageType)
        }
        return .object(out)
    }

    /// The changed object's new state, in the service's wire form, narrowed to its kind.
    static func object(_ event: PubNubDataSyncEvent) -> JSONValue? {
        if let entity = event.entity {
            switch entity.object {
            case .user(let user)?: return try? JSONValue(from: user)
            case .channel(let channel)?: return try? JSONValue(from: channel)
            case .entity(let object)?: return try? JSONValue(from: object)
            case nil:
                return partial(
                    id: entity.id, status: entity.status, payload: entity.payload, createdAt: entity.createdAt,
                    updatedAt: entity.updatedAt, expiresAt: entity.expiresAt, eTag: entity.eTag,
                    sides: [:])
            }
        }
        if let relationship = event.relationship {
            switch relationship.object {
            case .membership(let membership)?: return try? JSONValue(from: membership)
            case .relationship(let object)?: return try? JSONValue(from: object)
            case nil:
                let sides: [String: String] =
                    relationship.kind == .membership
                    ? ["channelId": relationship.entityAId, "userId": relationship.entityBId]
                    : ["entityAId": relationship.entityAId, "entityBId": relationship.entityBId]
                return partial(
                    id: relationship.id, status: relationship.status, payload: relationship.payload,
                    createdAt: relationship.createdAt, updatedAt: relationship.updatedAt,
                    expiresAt: relationship.expiresAt, eTag: relationship.eTag, sides: sides)
            }
        }
        return nil
    }

    /// An object as far as an incomplete event carried it: only the fields that arrived.
    private static func partial(
        id: String, status: String?, payload: JSONValue?, createdAt: Date?, updatedAt: Date?, expiresAt: Date?,
        eTag: String?, sides: [String: String]
    ) -> JSONValue {
        var out: [String: JSONValue] = ["id": .string(id)]
        for (key, value) in sides { out[key] = .string(value) }
        if let status { out["status"] = .string(status) }
        if let payload { out["payload"] = payload }
        if let createdAt { out["createdAt"] = .string(isoDate(createdAt)) }
        if let updatedAt { out["updatedAt"] = .string(isoDate(updatedAt)) }
        if let expiresAt { out["expiresAt"] = .string(isoDate(expiresAt)) }
        if let eTag { out["eTag"] = .string(eTag) }
        return .object(out)
    }

    static func changeName(_ change: PubNubDataSyncChange) -> String {
        switch change {
        case .entityCreated: return "entityCreated"
        case .entityUpdated: return "entityUpdated"
        case .entityDeleted: return "entityDeleted"
        case .relationshipCreated: return "relationshipCreated"
        case .relationshipUpdated: return "relationshipUpdated"
        case .relationshipDeleted: return "relationshipDeleted"
        case .unknown: return "unknown"
        }
    }

    static func isoDate(_ date: Date) -> String {
        let ticks = max(0, date.timeIntervalSince1970 * 10_000_000)
        return Timestamps.iso(Timetoken(ticks))
    }

    // MARK: Human

    static func human(_ event: PubNubEvent) -> String {
        let head = Timestamps.clock(event.timetoken) + "  " + event.channel + "  "
        func json(_ value: JSONValue?) -> String { value.map(JSONText.compact) ?? "-" }
        switch event {
        case .message(let message), .signal(let message):
            let kind: String
            if case .signal = event { kind = "signal" } else { kind = "message" }
            var text = head + kind + " from " + (message.publisher ?? "?") + ": " + json(message.payload)
            if let type = message.customMessageType { text += "  [type \(type)]" }
            if let meta = message.metadata { text += "  meta " + json(meta) }
            return text
        case .presence(let presence):
            var text = head + "presence " + presence.event.rawValue
            if let user = presence.uuid { text += " " + user }
            if let occupancy = presence.occupancy { text += " (occupancy \(occupancy))" }
            if !presence.join.isEmpty { text += " join " + presence.join.joined(separator: ",") }
            if !presence.leave.isEmpty { text += " leave " + presence.leave.joined(separator: ",") }
            if !presence.timeout.isEmpty { text += " timeout " + presence.timeout.joined(separator: ",") }
            if let state = presence.state { text += " state " + json(state) }
            return text
        case .dataSync(let change):
            var text = head + "datasync " + changeName(change.change) + " " + change.kind.rawValue
            if let id = change.objectId { text += " " + id }
            if let name = change.className {
                text += " (" + name + (change.classVersion.map { " v\($0)" } ?? "") + ")"
            }
            if change.projection != PubNubDataSyncEvent.defaultProjection {
                text += " [projection \(change.projection)]"
            }
            if let relationship = change.relationship {
                text += " " + relationship.entityAId + " <-> " + relationship.entityBId
            }
            if let state = object(change)?.objectValue {
                if let status = state["status"]?.stringValue { text += " status=" + status }
                if let payload = state["payload"] { text += " payload=" + json(payload) }
            }
            return text
        default:
            return head + (json(self.json(event)["type"]).replacingOccurrences(of: "\"", with: "")) + " "
                + JSONText.compact(self.json(event))
        }
    }

    static func status(_ status: PubNubStatus) -> String {
        var text = "\(status.category) (\(status.operation)"
        if let code = status.statusCode { text += ", HTTP \(code)" }
        if status.willAutomaticallyRetry { text += ", will retry" }
        text += ")"
        if let information = status.errorData?.information { text += ": " + information }
        if !status.subscribedChannels.isEmpty {
            text += " channels: " + status.subscribedChannels.joined(separator: ", ")
        }
        if !status.subscribedChannelGroups.isEmpty {
            text += " groups: " + status.subscribedChannelGroups.joined(separator: ", ")
        }
        return text
    }
}
