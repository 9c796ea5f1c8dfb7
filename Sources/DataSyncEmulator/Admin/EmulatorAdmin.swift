import Foundation
import JSONCore

/// The operations behind the admin routes and the matching in-process ``Emulator`` API: reset,
/// export, import, the clock, and the console's views (keysets, presence, histories, the live
/// request log and change stream). It holds references to the services' state and works through
/// their own actors and locks, so an admin call is as atomic as a request.
struct EmulatorAdmin: Sendable {
    let dataSync: DataSyncService
    let bus: PubSubBus
    let dataSyncEvents: DataSyncEventBridge
    let clock: EmulatorClock
    let requestLog: RequestLog
    /// Every DataSync change, as the change feed delivered it (bounded).
    let changes: Journal<ChangeEvent>
    let access: AdminAccess
    let pubSubKeysets: [PubSubKeyset]

    // MARK: Reset, export, import

    /// Resets one keyset: DataSync objects and classes (back to the built-ins and the class
    /// template) and the pub/sub state (log, groups, presence).
    func reset(_ subscribeKey: String) async -> JSONValue {
        let removed = await dataSync.administer { $0.resetKeyset(subscribeKey) }
        let (groups, presences) = await bus.resetKeyset(subscribeKey)
        var objects: [String: JSONValue] = [:]
        for name in ObjectCollection.all.map(\.name) { objects[name] = .int(Int64(removed[name] ?? 0)) }
        return [
            "subscribeKey": .string(subscribeKey), "removedObjects": .object(objects),
            "removedChannelGroups": .int(Int64(groups)), "removedPresences": .int(Int64(presences)),
        ]
    }

    /// Resets every keyset that holds anything.
    func resetAll() async -> JSONValue {
        let dataSyncKeys = await dataSync.administer { Array($0.store.keysets.keys) }
        let busKeys = await bus.keysetKeys()
        var results: [JSONValue] = []
        for key in Set(dataSyncKeys).union(busKeys).sorted() { results.append(await reset(key)) }
        return ["keysets": .array(results)]
    }

    /// The state of `subscribeKeys` (every keyset holding something when nil) in the seed format.
    func export(_ subscribeKeys: [String]?) async -> JSONValue {
        let document = await dataSync.administer { $0.exportSeed(subscribeKeys: subscribeKeys) }
        // Mobile push registrations live on the bus, not in DataSync: added per keyset as
        // `pushRegistrations`, which only the import reads (a start-up seed refuses them).
        let push = await bus.pushExport(subscribeKeys)
        guard !push.isEmpty, var keysets = document["keysets"]?.objectValue else { return document }
        for (key, registrations) in push {
            var fields = keysets[key]?.objectValue ?? [:]
            fields[Self.pushField] = registrations
            keysets[key] = .object(fields)
        }
        return ["keysets": .object(keysets)]
    }

    /// The export's per-keyset field for mobile push registrations.
    static let pushField = "pushRegistrations"

    /// The push registrations of an import document per keyset, checked before anything changes,
    /// and the document without them (what the DataSync seed reads).
    private static func splitPush(
        _ document: JSONValue
    ) throws(EmulatorError) -> (JSONValue, [String: [(PushDevice, [String])]]) {
        guard var keysets = document["keysets"]?.objectValue else { return (document, [:]) }
        var push: [String: [(PushDevice, [String])]] = [:]
        for key in keysets.keys.sorted() {
            guard var fields = keysets[key]?.objectValue, let value = fields[pushField] else { continue }
            let path = "/keysets/\(key)/\(pushField)"
            guard let items = value.arrayValue else {
                throw EmulatorError(code: .invalidSeed, message: "\(path) must be an array of registrations")
            }
            var registrations: [(PushDevice, [String])] = []
            for (index, item) in items.enumerated() {
                switch PushService.exportedRegistration(item) {
                case .success(let registration): registrations.append(registration)
                case .failure(let refusal):
                    throw EmulatorError(code: .invalidSeed, message: "\(path)/\(index): \(refusal.reason)")
                }
            }
            push[key] = registrations
            fields[pushField] = nil
            keysets[key] = .object(fields)
        }
        return (["keysets": .object(keysets)], push)
    }

    /// Replaces each keyset `document` names: validated first (nothing changes when it is
    /// refused), then reset as ``reset(_:)`` does and seeded. Returns what was created.
    func importState(_ imported: JSONValue) async throws(EmulatorError) -> JSONValue {
        let (document, push) = try Self.splitPush(imported)
        try await dataSync.administer { (engine: Engine) throws(EmulatorError) in
            try engine.validateSeed(document)
        }
        let names = document["keysets"]?.objectValue?.keys.sorted() ?? []
        for name in names { await bus.resetKeyset(name) }
        let before = changes.lastSequence
        do throws(EmulatorError) {
            _ = try await dataSync.administer { (engine: Engine) throws(EmulatorError) in
                try engine.importSeed(document, validated: true)
            }
        } catch {
            await dataSyncEvents.waitUntilPublished()
            throw error
        }
        await dataSyncEvents.waitUntilPublished()
        for (key, registrations) in push.sorted(by: { $0.key < $1.key }) {
            switch await bus.importPush(subscribeKey: key, registrations) {
            case nil: break
            case .tooManyDevices(let limit)?:
                throw EmulatorError(
                    code: .invalidSeed, message: "/keysets/\(key)/\(Self.pushField): more than \(limit) registrations")
            case .tooManyChannels(let limit)?:
                throw EmulatorError(
                    code: .invalidSeed, message: "/keysets/\(key)/\(Self.pushField): more than \(limit) channels")
            case .notSaved?:
                throw EmulatorError(
                    code: .fileAccess, message: "the state file could not record the push registrations")
            }
        }
        var created: [String: [String: Int]] = [:]
        for name in names { created[name] = [:] }
        for (key, registrations) in push { created[key, default: [:]][Self.pushField] = registrations.count }
        for (_, change) in changes.entries(after: before, limit: changes.capacity).entries
        where change.action == .create {
            created[change.subscribeKey, default: [:]][
                Engine.collectionName(of: ObjectKind(rawValue: change.objectType)),
                default: 0] += 1
        }
        return [
            "keysets": .object(
                created.mapValues { counts in
                    .object(
                        Dictionary(
                            uniqueKeysWithValues: (ObjectCollection.all.map(\.name) + [Self.pushField]).compactMap {
                                name -> (String, JSONValue)? in
                                if name == Self.pushField, counts[name] == nil { return nil }
                                return (name, .int(Int64(counts[name] ?? 0)))
                            })
                    )
                })
        ]
    }

    // MARK: Clock

    /// Moves the clock by `seconds` (backwards when negative), then removes what expired and
    /// times out lapsed presences at once.
    func advance(bySeconds seconds: Double) async {
        // Whole microseconds, as the emulator stores time; a non-finite step moves nothing and a
        // huge one is clamped instead of trapping.
        let micros = (seconds * 1_000_000).rounded()
        if micros.isFinite {
            clock.advance(by: .microseconds(Int64(max(-9.2e15, min(9.2e15, micros)))))
        }
        await bus.clockMoved()
        await sweep()
    }

    /// Stops the clock at `date`, then sweeps as ``advance(bySeconds:)`` does.
    func setTime(_ date: Date) async {
        clock.set(to: EmulatorClock.Instant(date))
        await bus.clockMoved()
        await sweep()
    }

    private func sweep() async {
        await dataSync.sweepExpired()
        await bus.sweepExpired()
    }

    /// `{"now","unixMicros","timetoken","stopped"}` (the timetoken of the instant, not one drawn).
    func clockJSON() -> JSONValue {
        let now = clock.now
        return [
            "now": .string(
                ISO8601Timestamp.string(microsecondsSince1970: now.microsecondsSince1970, fractionDigits: 6)),
            "unixMicros": .int(now.microsecondsSince1970),
            "timetoken": .string(String(max(0, EmulatorClock.Instant.floorDiv(now.nanosecondsSince1970, 100)))),
            "stopped": .bool(clock.isStopped),
        ]
    }

    // MARK: Console views

    /// Every keyset: the pub/sub keysets first-class, then any other subscribe key DataSync holds.
    func keysets() async -> JSONValue {
        let names = pubSubKeysets.map(\.subscribeKey)
        let summaries = await dataSync.administer { engine in
            for name in names { _ = engine.store.keyset(name) }
            return engine.keysetSummaries()
        }
        var ordered = names.filter { summaries[$0] != nil }
        ordered += summaries.keys.filter { !names.contains($0) }.sorted()
        var seen: Set<String> = []
        let list: [JSONValue] = ordered.filter { seen.insert($0).inserted }.map { key in
            var fields = summaries[key]?.objectValue ?? [:]
            fields["subscribeKey"] = .string(key)
            if let keyset = pubSubKeysets.first(where: { $0.subscribeKey == key }) {
                fields["pubSub"] = true
                fields["publishKey"] = .string(keyset.publishKey)
                fields["accessControl"] = .bool(keyset.accessControl)
            } else {
                fields["pubSub"] = false
                fields["accessControl"] = false
            }
            return .object(fields)
        }
        return ["keysets": .array(list), "adminSecretRequired": .bool(access.isSecretRequired)]
    }

    /// The changes of one object still in the change buffer, oldest first.
    func history(subscribeKey: String, collection: ObjectCollection, id: String) -> JSONValue {
        let found = changes.entries(after: 0, limit: changes.capacity) { change in
            change.subscribeKey == subscribeKey && change.id == id
                && ObjectKind(rawValue: change.objectType).space == collection.space
        }
        return [
            "subscribeKey": .string(subscribeKey), "collection": .string(collection.name), "id": .string(id),
            "changes": .array(found.entries.map { Self.changeJSON($0.element) }),
            "bufferStart": .int(Int64(changes.firstSequence)),
        ]
    }

    /// The request log after `after` (the newest `limit` when nil), waiting up to `wait` of real
    /// time for a first entry when there is none yet.
    func requests(after: UInt64?, limit: Int, wait: Duration) async -> JSONValue {
        var found = requestLog.journal.entries(after: after, limit: limit)
        if found.entries.isEmpty, let after, wait > .zero {
            await requestLog.journal.wait(after: after, timeout: wait)
            found = requestLog.journal.entries(after: after, limit: limit)
        }
        return [
            "requests": .array(found.entries.map { Self.requestJSON($0.element) }),
            "cursor": .int(Int64(found.through)),
        ]
    }

    /// The live event stream: DataSync changes (of `subscribeKey`, or of every keyset when nil)
    /// after `after`, and the pub/sub events of `subscribeKey`'s log after `messagesAfter`; nil
    /// cursors return the newest `limit`. When both are empty it waits up to `wait` of real time.
    func events(subscribeKey: String?, after: UInt64?, messagesAfter: UInt64?, limit: Int, wait: Duration) async
        -> JSONValue
    {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        var changeCursor = after
        while true {
            let found = changes.entries(after: changeCursor, limit: limit) { change in
                subscribeKey.map { change.subscribeKey == $0 } ?? true
            }
            var messages: [BusEvent] = []
            var messagesCursor = messagesAfter ?? 0
            if let subscribeKey, bus.knows(subscribeKey: subscribeKey) {
                let recent = await bus.recentEvents(subscribeKey, after: messagesAfter, limit: limit)
                messages = recent.events
                messagesCursor = messages.last?.timetoken ?? max(messagesAfter ?? recent.head, 0)
            }
            let now = clock.now
            let firstLook = after == nil || (subscribeKey != nil && messagesAfter == nil)
            if !found.entries.isEmpty || !messages.isEmpty || firstLook || now >= deadline || Task.isCancelled {
                return [
                    "changes": .array(found.entries.map { Self.changeJSON($0.element) }),
                    "cursor": .int(Int64(found.through)),
                    "messages": .array(messages.map(PubSubBus.consoleJSON)),
                    "messagesCursor": .string(String(messagesCursor)),
                ]
            }
            changeCursor = found.through
            // Changes wake the wait at once; pub/sub events are looked for four times a second.
            await changes.wait(after: found.through, timeout: min(.milliseconds(250), now.duration(to: deadline)))
        }
    }

    // MARK: JSON

    static func changeJSON(_ change: ChangeEvent) -> JSONValue {
        var fields: [String: JSONValue] = [
            "sequence": .int(Int64(truncatingIfNeeded: change.sequence)), "subscribeKey": .string(change.subscribeKey),
            "action": .string(change.action.rawValue), "cause": .string(change.cause.rawValue),
            "origin": .string(change.origin.rawValue), "type": .string(change.objectType),
            "collection": .string(Engine.collectionName(of: ObjectKind(rawValue: change.objectType))),
            "className": .string(change.className), "classLevel": .string(change.classLevel),
            "classVersion": .int(Int64(change.classVersion)), "eventsEnabled": .bool(change.eventsEnabled),
            "id": .string(change.id),
            "time": .string(
                ISO8601Timestamp.string(
                    microsecondsSince1970: Int64((change.time.timeIntervalSince1970 * 1_000_000).rounded()),
                    fractionDigits: 6)),
            "object": change.object,
        ]
        if let eTag = change.object["eTag"] { fields["eTag"] = eTag }
        return .object(fields)
    }

    static func requestJSON(_ entry: RequestLogEntry) -> JSONValue {
        let (seconds, attoseconds) = entry.duration.components
        let milliseconds = (Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10
        return [
            "sequence": .int(Int64(truncatingIfNeeded: entry.sequence)),
            "receivedAt": .string(
                ISO8601Timestamp.string(
                    microsecondsSince1970: Int64((entry.receivedAt.timeIntervalSince1970 * 1_000_000).rounded()),
                    fractionDigits: 3)),
            "method": .string(entry.method), "target": .string(entry.target), "status": .int(Int64(entry.status)),
            "durationMs": .double(milliseconds.rounded() / 10), "responseBytes": .int(Int64(entry.responseBytes)),
            "cancelled": .bool(entry.cancelled), "area": .string(entry.area),
        ]
    }
}
