import EmulatorHTTP
import JSONCore
import PubNubBase

/// What the configured seed document created when the emulator started
/// (``Emulator/seedSummary``); `datasync-emulator --seed FILE` prints ``description``.
public struct SeedSummary: Sendable, Hashable, CustomStringConvertible {
    /// Objects created, by keyset and then by collection (`users`, `channels`, `entities`,
    /// `memberships`, `relationships`).
    public var objects: [String: [String: Int]]
    /// Classes the seed's keysets define (`entityClasses` and `relationshipClasses`), by keyset.
    public var classes: [String: Int]
    /// Whether the seed was skipped because a state file was loaded instead.
    public var skipped: Bool

    /// Creates a summary.
    public init(objects: [String: [String: Int]], classes: [String: Int], skipped: Bool) {
        self.objects = objects
        self.classes = classes
        self.skipped = skipped
    }

    /// The summary of `document` as applied, given the objects it created.
    init(document: JSONValue, created: [String: [String: Int]], stateFileConfigured: Bool) {
        var classes: [String: Int] = [:]
        var itemCount = 0
        for (key, keyset) in document["keysets"]?.objectValue ?? [:] {
            let defined = ["entityClasses", "relationshipClasses"].reduce(0) {
                $0 + (keyset[$1]?.arrayValue?.count ?? 0)
            }
            if defined > 0 { classes[key] = defined }
            itemCount += ObjectCollection.all.reduce(0) { $0 + (keyset[$1.name]?.arrayValue?.count ?? 0) }
        }
        let skipped = stateFileConfigured && created.isEmpty && (itemCount > 0 || !classes.isEmpty)
        self.init(objects: skipped ? [:] : created, classes: skipped ? [:] : classes, skipped: skipped)
    }

    /// The total number of objects created.
    public var objectCount: Int { objects.values.reduce(0) { $0 + $1.values.reduce(0, +) } }

    /// One line: `seed: created 5 objects in keyset demo (3 users, 1 channel, 1 membership) and 2
    /// classes`, or `seed: skipped, the state file was loaded instead`.
    public var description: String {
        if skipped { return "seed: skipped, the state file was loaded instead" }
        let classCount = classes.values.reduce(0, +)
        let keysets = Set(objects.keys).union(classes.keys).sorted()
        guard objectCount > 0 || classCount > 0 else { return "seed: the seed document created nothing" }
        let parts = keysets.map { key -> String in
            let counts = objects[key] ?? [:]
            let kinds = ObjectCollection.all.compactMap { collection -> String? in
                guard let count = counts[collection.name], count > 0 else { return nil }
                return Self.count(count, collection.name)
            }
            var text = "keyset \(key) (" + (kinds.isEmpty ? "no objects" : kinds.joined(separator: ", "))
            if let defined = classes[key] { text += ", " + Self.count(defined, "classes") }
            return text + ")"
        }
        return "seed: created \(Self.count(objectCount, "objects")) in " + parts.joined(separator: "; ")
    }

    /// `1 user`, `3 users`, `1 entity`, `2 entities`, `1 class`.
    private static func count(_ value: Int, _ plural: String) -> String {
        guard value == 1 else { return "\(value) \(plural)" }
        switch plural {
        case "entities": return "1 entity"
        case "classes": return "1 class"
        default: return "1 " + plural.dropLast()
        }
    }
}

/// Counts the creates of the seed while the emulator starts; stops counting once told.
final class SeedCounter: Sendable {
    private let state = Locked<(counting: Bool, counts: [String: [String: Int]])>((true, [:]))

    func receive(_ change: ChangeEvent) {
        guard change.action == .create else { return }
        state.withLock { state in
            guard state.counting else { return }
            let collection = Engine.collectionName(of: ObjectKind(rawValue: change.objectType))
            state.counts[change.subscribeKey, default: [:]][collection, default: 0] += 1
        }
    }

    /// Stops counting and returns what was counted.
    func finish() -> [String: [String: Int]] {
        state.withLock { state in
            state.counting = false
            return state.counts
        }
    }
}
