import EmulatorHTTP
import Foundation
import JSONCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the pub/sub side of a state file held when the emulator started.
struct PubSubSavedState: Sendable {
    /// The clock's setting, when the admin routes moved it.
    var clock: EmulatorClock.Setting?
    /// Per keyset, a timetoken at or above every one the previous run may have handed out.
    var floors: [String: UInt64] = [:]
    /// Per keyset, the catch-up buffer, oldest first.
    var events: [String: [BusEvent]] = [:]
    /// Per keyset, group → channels.
    var groups: [String: [String: [String]]] = [:]
    /// Per keyset, the message history and its actions.
    var history: [String: MessageStore] = [:]
    /// Per keyset, the mobile push registrations.
    var push: [String: PushRegistrations] = [:]
}

/// The pub/sub half of `--state-file`: `<state file>.pubsub`, an append-only list of what a
/// client of the pub/sub routes may ask for again after a restart: the catch-up buffer, the
/// channel groups, the message history and its actions, the mobile push registrations, the clock's setting when the admin routes moved it, and how far timetokens
/// went. Presence is not kept: it is ephemeral, and clients announce themselves again.
///
/// Records use the framing of ``StatePersistence`` (`[length][CRC-32][JSON payload]`); each is
/// appended and `fdatasync`ed before the answer that depends on it leaves, so an acknowledged
/// publish survives `kill -9`. A torn last record is a write that was never acknowledged and is
/// dropped; a bad record followed by more data is corruption and refused.
///
/// Timetokens are drawn far more often than anything is published (every empty subscribe answer
/// and `/time` hands one out), so they are not written one by one: the journal **reserves** a
/// range ahead (``reservationTicks``) and a restarted emulator continues above the reservation.
///
/// The file is **compacted** (rewritten through a temporary file and a rename, holding only the
/// current state) at start and whenever it grows past twice its compacted size (and 1 MiB), so
/// it stays proportional to the catch-up buffer and the history. Confined to the pub/sub bus's actor.
final class PubSubJournal {
    static let format = "datasync-emulator-pubsub"
    /// How far ahead of the timetoken just drawn a reservation reaches: one second of ticks.
    static let reservationTicks: UInt64 = 10_000_000
    static let minimumCompactionBytes = 1 << 20

    let path: String
    /// Failures to inject, for tests (``StorageFaults/Kind/appendFails`` fails the next write).
    let faults: StorageFaults?
    /// The open file (-1 before the first write, or when it could not be written: the next
    /// write compacts first).
    private var descriptor: Int32 = -1
    /// The length up to the last complete record.
    private var length = 0
    private var compactedLength = 0
    /// Per keyset, the reservation on disk.
    private(set) var reserved: [String: UInt64] = [:]
    /// The clock setting on disk, if the admin routes ever moved the clock.
    private(set) var savedClock: EmulatorClock.Setting?

    private init(path: String, faults: StorageFaults?) {
        self.path = path
        self.faults = faults
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether the next write should rewrite the whole state first (the file grew long, or a
    /// failed write left it unusable).
    var needsCompaction: Bool {
        descriptor < 0 || length > max(Self.minimumCompactionBytes, 2 * compactedLength)
    }

    // MARK: Opening

    /// Reads `path` when it exists. Nothing is written yet: the first write rewrites the file
    /// compacted (so a state refused elsewhere leaves this file as it was, too).
    ///
    /// - Throws: ``EmulatorError`` with `corruptStateFile` when the file is not a pub/sub journal
    ///   or a record other than the last is damaged (the file is left as it is), `fileAccess`
    ///   when it cannot be read.
    static func open(path: String, faults: StorageFaults? = nil) throws(EmulatorError) -> (
        PubSubJournal, PubSubSavedState
    ) {
        let journal = PubSubJournal(path: path, faults: faults)
        journal.removeLeftoverTemporaryFiles()
        var saved = PubSubSavedState()
        if let bytes = try StateFile.readBytes(path: path) {
            saved = try read(bytes, path: path)
        }
        journal.reserved = saved.floors
        journal.savedClock = saved.clock
        return (journal, saved)
    }

    private static func read(_ bytes: [UInt8], path: String) throws(EmulatorError) -> PubSubSavedState {
        func refused(_ reason: String) -> EmulatorError {
            EmulatorError(code: .corruptStateFile, message: "\(path) is refused and was left as it is: \(reason)")
        }
        var offset = 0
        guard case .complete(let header)? = StatePersistence.record(in: bytes, at: &offset),
            let document = try? JSONValue(parsing: Array(header)), document["format"]?.stringValue == format
        else {
            throw refused("it does not start with a pub/sub journal header (format \(format))")
        }
        var saved = PubSubSavedState()
        var index = 0
        while let read = StatePersistence.record(in: bytes, at: &offset) {
            index += 1
            guard case .complete(let payload) = read else {
                // A torn last record was never acknowledged; anything after it is damage.
                if offset < bytes.count { throw refused("record \(index) is damaged and more follow it") }
                break
            }
            guard let record = try? JSONValue(parsing: Array(payload)), apply(record, to: &saved) else {
                throw refused("record \(index) is not a pub/sub journal record")
            }
        }
        return saved
    }

    /// Applies one record; false when it is not one this journal writes.
    private static func apply(_ record: JSONValue, to saved: inout PubSubSavedState) -> Bool {
        switch record["r"]?.stringValue {
        case "event":
            guard let event = event(record) else { return false }
            saved.events[event.subscribeKey, default: []].append(event)
            raise(&saved.floors, event.subscribeKey, event.timetoken)
        case "reserve":
            guard let key = record["k"]?.stringValue, let through = ticks(record["t"]) else { return false }
            raise(&saved.floors, key, through)
        case "group":
            guard let key = record["k"]?.stringValue, let group = record["g"]?.stringValue else { return false }
            if let channels = record["c"]?.arrayValue {
                saved.groups[key, default: [:]][group] = channels.compactMap(\.stringValue)
            } else {
                saved.groups[key]?[group] = nil
            }
        case "reset":
            // The floor stays: timetokens never go back, even for a keyset reset.
            guard let key = record["k"]?.stringValue else { return false }
            saved.events[key] = nil
            saved.groups[key] = nil
            saved.history[key] = nil
            saved.push[key] = nil
        case "push":
            guard let key = record["k"]?.stringValue, let device = pushDevice(record),
                let channels = record["c"]?.arrayValue
            else { return false }
            saved.push[key, default: PushRegistrations()].set(device, channels: channels.compactMap(\.stringValue))
        case "stored":
            // Lapsed messages are kept here and skipped by reads, which know the clock.
            guard let key = record["k"]?.stringValue, let channel = record["c"]?.stringValue,
                let message = storedMessage(record)
            else { return false }
            saved.history[key, default: MessageStore()].insert(message, channel: channel, now: .min)
        case "unstored":
            guard let key = record["k"]?.stringValue, let channel = record["c"]?.stringValue else { return false }
            saved.history[key]?.delete(
                channel: channel, range: HistoryRange(start: ticks(record["s"]), end: ticks(record["e"])))
        case "action":
            guard let key = record["k"]?.stringValue, let channel = record["c"]?.stringValue,
                let action = storedAction(record)
            else { return false }
            _ = saved.history[key, default: MessageStore()].add(action, channel: channel)
        case "unaction":
            guard let key = record["k"]?.stringValue, let channel = record["c"]?.stringValue,
                let message = ticks(record["m"]), let action = ticks(record["a"])
            else { return false }
            _ = saved.history[key]?.removeAction(channel: channel, messageTimetoken: message, actionTimetoken: action)
        case "clock":
            if let offset = record["running"]?.int64Value {
                saved.clock = .running(offset: offset)
            } else if let instant = record["stopped"]?.int64Value {
                saved.clock = .stopped(at: instant)
            } else {
                return false
            }
        default:
            return false
        }
        return true
    }

    private static func raise(_ floors: inout [String: UInt64], _ key: String, _ value: UInt64) {
        floors[key] = max(floors[key] ?? 0, value)
    }

    // MARK: Writing

    /// Makes sure a restart continues above `timetoken` for `subscribeKey`, writing a new
    /// reservation when it is past the one on disk. Returns false when that write failed.
    func reserve(_ subscribeKey: String, through timetoken: UInt64) -> Bool {
        if let current = reserved[subscribeKey], timetoken <= current { return true }
        let through = timetoken.addingReportingOverflow(Self.reservationTicks)
        let value = through.overflow ? UInt64.max : through.partialValue
        guard write(["r": "reserve", "k": .string(subscribeKey), "t": .string(String(value))]) else { return false }
        reserved[subscribeKey] = value
        return true
    }

    /// Appends an event of the catch-up buffer; false when it could not be saved.
    func append(_ event: BusEvent) -> Bool { write(Self.record(event)) }

    /// Appends a message the history stored; false when it could not be saved.
    func stored(_ message: StoredMessage, subscribeKey: String, channel: String) -> Bool {
        write(Self.record(message, subscribeKey: subscribeKey, channel: channel))
    }

    /// Saves that the messages of a channel in `range` were deleted.
    func unstored(subscribeKey: String, channel: String, range: HistoryRange) -> Bool {
        var fields: [String: JSONValue] = ["r": "unstored", "k": .string(subscribeKey), "c": .string(channel)]
        if let start = range.start { fields["s"] = .string(String(start)) }
        if let end = range.end { fields["e"] = .string(String(end)) }
        return write(.object(fields))
    }

    /// Appends a message action; false when it could not be saved.
    func added(_ action: StoredAction, subscribeKey: String, channel: String) -> Bool {
        write(Self.record(action, subscribeKey: subscribeKey, channel: channel))
    }

    /// Saves that a message action was removed.
    func removed(_ action: StoredAction, subscribeKey: String, channel: String) -> Bool {
        write([
            "r": "unaction", "k": .string(subscribeKey), "c": .string(channel),
            "m": .string(String(action.messageTimetoken)), "a": .string(String(action.actionTimetoken)),
        ])
    }

    /// Saves a group's members after a change (nil: the group is gone).
    @discardableResult
    func groupChanged(_ subscribeKey: String, group: String, channels: [String]?) -> Bool {
        write([
            "r": "group", "k": .string(subscribeKey), "g": .string(group),
            "c": channels.map { .array($0.map(JSONValue.string)) } ?? .null,
        ])
    }

    /// Saves a push device's channels after a change (empty: the device is gone).
    func pushChanged(_ subscribeKey: String, device: PushDevice, channels: [String]) -> Bool {
        write(Self.record(device, subscribeKey: subscribeKey, channels: channels))
    }

    /// Saves that a keyset's buffer and groups were dropped.
    @discardableResult
    func reset(_ subscribeKey: String) -> Bool { write(["r": "reset", "k": .string(subscribeKey)]) }

    /// Saves the clock's setting after the admin routes moved it.
    @discardableResult
    func clockMoved(_ setting: EmulatorClock.Setting) -> Bool {
        guard write(Self.record(setting)) else { return false }
        savedClock = setting
        return true
    }

    private func write(_ record: JSONValue) -> Bool {
        guard descriptor >= 0, let payload = try? record.jsonBytes(), payload.count < Int(UInt32.max / 2) else {
            return false
        }
        if faults?.take([.appendFails]) != nil { return false }
        let framed = StatePersistence.frame(payload)
        if StatePersistence.writeAll(descriptor, framed, at: length) && syncData(descriptor) == 0 {
            length += framed.count
            return true
        }
        // Not acknowledged, so it must not come back at the next start: cut it off, or give up
        // on this file until a compaction replaces it.
        if ftruncate(descriptor, off_t(length)) != 0 || syncData(descriptor) != 0 {
            close(descriptor)
            descriptor = -1
        }
        return false
    }

    /// Replaces the file with one holding exactly `state` (and the reservations made so far).
    func compact(_ state: PubSubSavedState) throws(EmulatorError) {
        var reservations = reserved
        for (key, floor) in state.floors { Self.raise(&reservations, key, floor) }
        let header: JSONValue = ["format": .string(Self.format), "formatVersion": 1]
        var bytes = StatePersistence.frame((try? header.jsonBytes()) ?? [])
        func add(_ record: JSONValue) {
            if let payload = try? record.jsonBytes() { bytes += StatePersistence.frame(payload) }
        }
        if let clock = state.clock { add(Self.record(clock)) }
        for key in reservations.keys.sorted() {
            add(["r": "reserve", "k": .string(key), "t": .string(String(reservations[key] ?? 0))])
        }
        for key in state.groups.keys.sorted() {
            for (group, channels) in (state.groups[key] ?? [:]).sorted(by: { $0.key < $1.key }) {
                add([
                    "r": "group", "k": .string(key), "g": .string(group), "c": .array(channels.map(JSONValue.string)),
                ])
            }
        }
        for key in state.push.keys.sorted() {
            let push = state.push[key] ?? PushRegistrations()
            for device in push.devices.keys.sorted() {
                add(Self.record(device, subscribeKey: key, channels: push.channels(of: device)))
            }
        }
        for key in state.events.keys.sorted() {
            for event in state.events[key] ?? [] { add(Self.record(event)) }
        }
        for key in state.history.keys.sorted() {
            let store = state.history[key] ?? MessageStore()
            for (channel, history) in store.channels.sorted(by: { $0.key < $1.key }) {
                for message in history.messages { add(Self.record(message, subscribeKey: key, channel: channel)) }
                for action in history.actions { add(Self.record(action, subscribeKey: key, channel: channel)) }
            }
        }
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        try StatePersistence.replaceAtomically(path, with: bytes)
        // Never through a link, and only a file of this user (the rename just put it there).
        guard let opened = try StateFileAccess.openExisting(path, flags: O_WRONLY) else {
            throw StatePersistence.systemError("cannot open \(path)")
        }
        descriptor = opened
        length = bytes.count
        compactedLength = bytes.count
        reserved = reservations
        savedClock = state.clock
    }

    // MARK: Records

    private static func record(_ setting: EmulatorClock.Setting) -> JSONValue {
        switch setting {
        case .running(let offset): return ["r": "clock", "running": .int(offset)]
        case .stopped(let instant): return ["r": "clock", "stopped": .int(instant)]
        }
    }

    private static func record(_ event: BusEvent) -> JSONValue {
        var fields: [String: JSONValue] = [
            "r": "event", "k": .string(event.subscribeKey), "t": .string(String(event.timetoken)),
            "c": .string(event.channel), "d": event.payload,
        ]
        if event.publishTimetoken != event.timetoken { fields["pt"] = .string(String(event.publishTimetoken)) }
        if let eventType = event.eventType { fields["e"] = .int(Int64(eventType)) }
        if let publisher = event.publisher { fields["i"] = .string(publisher) }
        if let meta = event.meta { fields["u"] = meta }
        if let customMessageType = event.customMessageType { fields["cmt"] = .string(customMessageType) }
        if let sequence = event.sequence { fields["s"] = .int(sequence) }
        return .object(fields)
    }

    private static func event(_ record: JSONValue) -> BusEvent? {
        guard let key = record["k"]?.stringValue, let timetoken = ticks(record["t"]),
            let channel = record["c"]?.stringValue, let payload = record["d"]
        else { return nil }
        let eventType = record["e"]?.int64Value.flatMap { Int(exactly: $0) }
        return BusEvent(
            timetoken: timetoken, publishTimetoken: ticks(record["pt"]) ?? timetoken, subscribeKey: key,
            channel: channel, payload: payload, eventType: eventType, publisher: record["i"]?.stringValue,
            meta: record["u"], customMessageType: record["cmt"]?.stringValue, sequence: record["s"]?.int64Value)
    }

    private static func record(_ message: StoredMessage, subscribeKey: String, channel: String) -> JSONValue {
        var fields: [String: JSONValue] = [
            "r": "stored", "k": .string(subscribeKey), "c": .string(channel),
            "t": .string(String(message.timetoken)), "d": message.payload,
        ]
        if let publisher = message.publisher { fields["i"] = .string(publisher) }
        if let meta = message.meta { fields["u"] = meta }
        if let customMessageType = message.customMessageType { fields["cmt"] = .string(customMessageType) }
        if let messageType = message.messageType { fields["e"] = .int(Int64(messageType)) }
        if let expires = message.expires { fields["x"] = .int(expires) }
        return .object(fields)
    }

    private static func storedMessage(_ record: JSONValue) -> StoredMessage? {
        guard let timetoken = ticks(record["t"]), let payload = record["d"] else { return nil }
        return StoredMessage(
            timetoken: timetoken, payload: payload, publisher: record["i"]?.stringValue, meta: record["u"],
            customMessageType: record["cmt"]?.stringValue,
            messageType: record["e"]?.int64Value.flatMap { Int(exactly: $0) }, expires: record["x"]?.int64Value)
    }

    private static func record(_ action: StoredAction, subscribeKey: String, channel: String) -> JSONValue {
        [
            "r": "action", "k": .string(subscribeKey), "c": .string(channel),
            "m": .string(String(action.messageTimetoken)), "a": .string(String(action.actionTimetoken)),
            "ty": .string(action.type), "v": .string(action.value), "i": .string(action.uuid),
        ]
    }

    private static func storedAction(_ record: JSONValue) -> StoredAction? {
        guard let message = ticks(record["m"]), let action = ticks(record["a"]), let type = record["ty"]?.stringValue,
            let value = record["v"]?.stringValue, let uuid = record["i"]?.stringValue
        else { return nil }
        return StoredAction(messageTimetoken: message, actionTimetoken: action, type: type, value: value, uuid: uuid)
    }

    private static func record(_ device: PushDevice, subscribeKey: String, channels: [String]) -> JSONValue {
        var fields: [String: JSONValue] = [
            "r": "push", "k": .string(subscribeKey), "ty": .string(device.type), "d": .string(device.token),
            "c": .array(channels.map(JSONValue.string)),
        ]
        if let topic = device.topic { fields["tp"] = .string(topic) }
        if let environment = device.environment { fields["env"] = .string(environment) }
        return .object(fields)
    }

    private static func pushDevice(_ record: JSONValue) -> PushDevice? {
        guard let type = record["ty"]?.stringValue, let token = record["d"]?.stringValue else { return nil }
        return PushDevice(
            type: type, token: token, topic: record["tp"]?.stringValue, environment: record["env"]?.stringValue)
    }

    private static func ticks(_ value: JSONValue?) -> UInt64? { value?.stringValue.flatMap { UInt64($0) } }

    // MARK: Files

    /// Removes the temporary files of compactions interrupted in processes that are gone.
    private func removeLeftoverTemporaryFiles() {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            // `.<name>.<pid>.<random>.tmp` (StateFileAccess.createTemporary), or `.<name>.<pid>.tmp`.
            let parts = entry.dropFirst(prefix.count).dropLast(".tmp".count)
                .split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }), let pid = parts.first.flatMap({ Int32($0) }),
                pid > 0, pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH)
            else { continue }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(entry))
        }
    }
}
