import Foundation

/// The members of a JSON object: names mapped to values, where two names are the same only when
/// they hold the same Unicode scalars.
///
/// Swift's `String` treats canonically equivalent text as equal, so `"é"` (U+00E9) and
/// `"e\u{301}"` (U+0065 U+0301) would be one key of a `[String: JSONValue]`. JSON compares member
/// names code point by code point (RFC 8259 §8.3, and JSON Pointer and JSON Patch after it), so
/// `JSONObject` keeps them as two members. No name is ever normalised: what was parsed or stored is
/// what is written back.
///
/// `JSONObject` reads like a dictionary: build it from a dictionary literal, subscript it by
/// name, iterate `(key, value)` pairs in no particular order, and use `keys`, `values`, `count`,
/// `mapValues`, `merge` and the rest as you would on `[String: JSONValue]`.
///
/// ```swift
/// var members: JSONObject = ["name": "Sneaker", "price": 79.99]
/// members["stock"] = 24
/// members["e\u{301}"] = 1
/// members["é"] = 2
/// members.count  // 5: the two spellings of é are different names
/// let value = JSONValue.object(members)
/// ```
///
/// Equality compares names by scalars and values with ``JSONValue``'s JSON equality; hashing
/// agrees, and neither depends on member order. The type is a value type with copy-on-write
/// storage. Objects of up to eight members (most message payloads) keep their
/// members in one contiguous array searched by name, which costs no hashing; a larger object keeps
/// them in a hash table keyed by the UTF-8 bytes of each name, with the costs of a Swift
/// `Dictionary`. Which form an object uses never changes what it holds, how it compares or hashes.
public struct JSONObject: Sendable {
    /// A member name; see ``JSONMemberName``.
    package typealias MemberName = JSONMemberName
    /// One member of a small object; see ``JSONMember``.
    package typealias Member = JSONMember

    /// Where the members live: a small object's array, searched linearly, or a hash table.
    package enum Storage: Sendable {
        /// At most `smallObjectLimit` members with distinct names, in insertion order.
        case small(ContiguousArray<Member>)
        /// Any number of members.
        case hashed([MemberName: JSONValue])
    }

    /// The most members an object keeps in its array form; inserting one more moves them to a
    /// hash table (removing members later does not move them back).
    ///
    /// Comparing a few short names byte by byte is cheaper than hashing one, and building the
    /// array is a single allocation with no hashing at all, so parsing a payload of a handful of
    /// members avoids the hash table's costs.
    package static let smallObjectLimit = 8

    package var storage: Storage

    /// Creates an empty object.
    public init() { storage = .small([]) }

    /// Creates an empty object with room for `minimumCapacity` members before it reallocates.
    public init(minimumCapacity: Int) {
        if minimumCapacity > Self.smallObjectLimit {
            storage = .hashed(Dictionary(minimumCapacity: minimumCapacity))
        } else {
            var members = ContiguousArray<Member>()
            members.reserveCapacity(minimumCapacity)
            storage = .small(members)
        }
    }

    /// An object over `members`, whose names must be distinct and at most `smallObjectLimit`.
    @inline(__always)
    package init(smallMembers members: ContiguousArray<Member>) { storage = .small(members) }

    /// An object holding the members of `storage`, in the array form when they are few enough.
    package init(storage: [MemberName: JSONValue]) {
        if storage.count <= Self.smallObjectLimit {
            var members = ContiguousArray<Member>()
            members.reserveCapacity(storage.count)
            for (key, value) in storage { members.append(Member(key: key, value: value)) }
            self.storage = .small(members)
        } else {
            self.storage = .hashed(storage)
        }
    }

    /// Creates an object from a Swift dictionary.
    ///
    /// A `[String: JSONValue]` has already merged canonically equivalent keys into one; converting
    /// it keeps whichever spelling the dictionary kept. Build a `JSONObject` directly (or parse the
    /// text) when both spellings must survive.
    public init(_ dictionary: [String: JSONValue]) {
        self.init(minimumCapacity: dictionary.count)
        for (key, value) in dictionary { self[key] = value }
    }

    /// Creates an object from name–value pairs. Unlike `Dictionary(uniqueKeysWithValues:)`, a
    /// repeated name does not trap: the last value wins, so pairs from untrusted input are safe.
    public init(uniqueKeysWithValues pairs: some Sequence<(String, JSONValue)>) {
        self.init(minimumCapacity: pairs.underestimatedCount)
        for (key, value) in pairs { self[key] = value }
    }

    /// Creates an object from name–value pairs, calling `combine` with the current and the new
    /// value whenever a name repeats.
    ///
    /// - Throws: Whatever `combine` throws.
    public init(
        _ pairs: some Sequence<(String, JSONValue)>,
        uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows {
        self.init(minimumCapacity: pairs.underestimatedCount)
        for (key, value) in pairs {
            if let existing = self[key] {
                self[key] = try combine(existing, value)
            } else {
                self[key] = value
            }
        }
    }

    // MARK: Storage primitives

    /// The value stored under `name`.
    @inline(__always)
    func value(for name: MemberName) -> JSONValue? {
        switch storage {
        case .small(let members):
            guard let position = members.position(of: name) else { return nil }
            return members[position].value
        case .hashed(let table):
            return table[name]
        }
    }

    /// Calls `body` with the value stored under `name` (nil when absent) and stores what it leaves
    /// there (nil removes the member). The value is moved out first, so nested containers stay
    /// uniquely referenced and are mutated in place.
    @inline(__always)
    mutating func withValue<Result>(for name: MemberName, _ body: (inout JSONValue?) throws -> Result) rethrows
        -> Result
    {
        try body(&self[member: name])
    }

    /// The value stored under `name`, read and written in place (nil removes the member). While
    /// it is lent out the storage holds an empty placeholder, so a nested container in it stays
    /// uniquely referenced and is mutated in place.
    subscript(member name: MemberName) -> JSONValue? {
        get { value(for: name) }
        _modify {
            switch storage {
            case .hashed(var table):
                storage = .small([])
                defer { storage = .hashed(table) }
                yield &table[name]
            case .small(var members):
                storage = .small([])
                if let position = members.position(of: name) {
                    var value: JSONValue? = members[position].value
                    members[position].value = .null
                    defer {
                        if let value {
                            members[position].value = value
                        } else {
                            members.remove(at: position)
                        }
                        storage = .small(members)
                    }
                    yield &value
                } else {
                    var value: JSONValue?
                    defer {
                        if let value, let table = members.appendNew(name, value) {
                            storage = .hashed(table)
                        } else {
                            storage = .small(members)
                        }
                    }
                    yield &value
                }
            }
        }
    }

    // MARK: Dictionary API

    /// The value of the member named `key` (compared by Unicode scalars), or `nil` when there is
    /// none. Setting `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get { value(for: MemberName(key)) }
        _modify { yield &self[member: MemberName(key)] }
    }

    /// The value of the member named `key`, or `defaultValue` when there is none. Mutating
    /// through this subscript stores the member.
    public subscript(key: String, default defaultValue: @autoclosure () -> JSONValue) -> JSONValue {
        get { value(for: MemberName(key)) ?? defaultValue() }
        _modify {
            let name = MemberName(key)
            switch storage {
            case .hashed(var table):
                storage = .small([])
                defer { storage = .hashed(table) }
                yield &table[name, default: defaultValue()]
            case .small(var members):
                storage = .small([])
                if let position = members.position(of: name) {
                    var value = members[position].value
                    members[position].value = .null
                    defer {
                        members[position].value = value
                        storage = .small(members)
                    }
                    yield &value
                } else {
                    var value = defaultValue()
                    defer {
                        if let table = members.appendNew(name, value) {
                            storage = .hashed(table)
                        } else {
                            storage = .small(members)
                        }
                    }
                    yield &value
                }
            }
        }
    }

    /// The number of members.
    public var count: Int {
        switch storage {
        case .small(let members): members.count
        case .hashed(let table): table.count
        }
    }

    /// Whether the object has no members.
    public var isEmpty: Bool { count == 0 }

    /// The number of members the object can hold before it reallocates.
    public var capacity: Int {
        switch storage {
        case .small(let members): Swift.min(members.capacity, Self.smallObjectLimit)
        case .hashed(let table): table.capacity
        }
    }

    /// The member names, in the same (unspecified) order as iteration.
    public var keys: Keys { Keys(storage: storage) }

    /// The member values, in the same (unspecified) order as iteration.
    public var values: Values {
        get { Values(storage: storage) }
        _modify {
            // Move the storage out so the yielded view holds the only reference and mutates in place.
            var view = Values(storage: storage)
            storage = .small([])
            defer { storage = view.storage }
            yield &view
        }
    }

    /// The member names in ascending order of their Unicode scalars, the order
    /// ``JSONValue/jsonBytes(sortedKeys:)`` writes them in. Unlike `keys.sorted()`, which orders
    /// by Swift's canonical-equivalence rules, two different names never tie.
    public var sortedKeys: [String] {
        map(\.key).sorted(by: ScalarText.less)
    }

    /// The members in ascending order of their names' Unicode scalars, as the sorted writer puts
    /// them.
    package var sortedMembers: [Member] {
        var members: [Member] = []
        members.reserveCapacity(count)
        switch storage {
        case .small(let small): members.append(contentsOf: small)
        case .hashed(let table): for (key, value) in table { members.append(Member(key: key, value: value)) }
        }
        members.sort { ScalarText.less($0.key.string, $1.key.string) }
        return members
    }

    /// The members as a Swift dictionary, for APIs that take one.
    ///
    /// Lossy when two names are canonically equivalent but differ in their scalars: the
    /// dictionary keeps one of them (which one is unspecified).
    public var dictionary: [String: JSONValue] {
        var result = [String: JSONValue](minimumCapacity: count)
        for (key, value) in self { result[key] = value }
        return result
    }

    /// Stores `value` under `key` and returns the value it replaced, or `nil` when the member is
    /// new.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        withValue(for: MemberName(key)) { slot in
            let old = slot
            slot = value
            return old
        }
    }

    /// Removes the member named `key` and returns its value, or `nil` when there was none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        withValue(for: MemberName(key)) { slot in
            let old = slot
            slot = nil
            return old
        }
    }

    /// Removes the member at `index` and returns it. `index` must be a valid position of this
    /// object (from ``index(forKey:)`` or iteration, with no mutation since).
    @discardableResult
    public mutating func remove(at index: Index) -> (key: String, value: JSONValue) {
        switch (storage, index.position) {
        case (.small(var members), .small(let position)):
            storage = .small([])
            let removed = members.remove(at: position)
            storage = .small(members)
            return (key: removed.key.string, value: removed.value)
        case (.hashed(var table), .hashed(let position)):
            storage = .small([])
            let removed = table.remove(at: position)
            storage = .hashed(table)
            return (key: removed.key.string, value: removed.value)
        default:
            // An index of another form belongs to another object: name it by its key instead.
            let member = self[index]
            removeValue(forKey: member.key)
            return member
        }
    }

    /// Removes every member, keeping the storage when `keepingCapacity` is `true`.
    public mutating func removeAll(keepingCapacity: Bool = false) {
        switch storage {
        case .small(var members):
            storage = .small([])
            members.removeAll(keepingCapacity: keepingCapacity)
            storage = .small(members)
        case .hashed(var table):
            storage = .small([])
            if keepingCapacity {
                table.removeAll(keepingCapacity: true)
                storage = .hashed(table)
            }
        }
    }

    /// Makes room for `minimumCapacity` members.
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        switch storage {
        case .small(var members):
            storage = .small([])
            if minimumCapacity > Self.smallObjectLimit {
                var table = [MemberName: JSONValue](minimumCapacity: minimumCapacity)
                for member in members { table[member.key] = member.value }
                storage = .hashed(table)
            } else {
                members.reserveCapacity(minimumCapacity)
                storage = .small(members)
            }
        case .hashed(var table):
            storage = .small([])
            table.reserveCapacity(minimumCapacity)
            storage = .hashed(table)
        }
    }

    /// An object with the same names and each value transformed.
    ///
    /// - Throws: Whatever `transform` throws.
    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        switch storage {
        case .small(let members):
            var mapped = ContiguousArray<Member>()
            mapped.reserveCapacity(members.count)
            for member in members { mapped.append(Member(key: member.key, value: try transform(member.value))) }
            return JSONObject(smallMembers: mapped)
        case .hashed(let table):
            var result = JSONObject()
            result.storage = .hashed(try table.mapValues(transform))
            return result
        }
    }

    /// An object with the same names and each value transformed, leaving out members whose
    /// transform returns `nil`.
    ///
    /// - Throws: Whatever `transform` throws.
    public func compactMapValues(_ transform: (JSONValue) throws -> JSONValue?) rethrows -> JSONObject {
        switch storage {
        case .small(let members):
            var mapped = ContiguousArray<Member>()
            mapped.reserveCapacity(members.count)
            for member in members {
                if let value = try transform(member.value) { mapped.append(Member(key: member.key, value: value)) }
            }
            return JSONObject(smallMembers: mapped)
        case .hashed(let table):
            var result = JSONObject()
            result.storage = .hashed(try table.compactMapValues(transform))
            return result
        }
    }

    /// The members for which `isIncluded` returns `true`, as an object.
    ///
    /// - Throws: Whatever `isIncluded` throws.
    public func filter(_ isIncluded: ((key: String, value: JSONValue)) throws -> Bool) rethrows -> JSONObject {
        switch storage {
        case .small(let members):
            var kept = ContiguousArray<Member>()
            for member in members where try isIncluded((key: member.key.string, value: member.value)) {
                kept.append(member)
            }
            return JSONObject(smallMembers: kept)
        case .hashed(let table):
            var result = JSONObject()
            result.storage = .hashed(try table.filter { try isIncluded((key: $0.key.string, value: $0.value)) })
            return result
        }
    }

    /// Adds the members of `other`, calling `combine` with the current and the new value when a
    /// name is in both.
    ///
    /// - Throws: Whatever `combine` throws.
    public mutating func merge(
        _ other: JSONObject, uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows {
        if case .hashed(var table) = storage, case .hashed(let otherTable) = other.storage {
            storage = .small([])
            defer { storage = .hashed(table) }
            try table.merge(otherTable, uniquingKeysWith: combine)
            return
        }
        try other.forEachMember { name, value in
            try withValue(for: name) { slot in
                if let existing = slot {
                    slot = try combine(existing, value)
                } else {
                    slot = value
                }
            }
        }
    }

    /// Adds name–value pairs, calling `combine` with the current and the new value when a name
    /// is already present.
    ///
    /// - Throws: Whatever `combine` throws.
    public mutating func merge(
        _ other: some Sequence<(key: String, value: JSONValue)>,
        uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows {
        for (key, value) in other {
            try withValue(for: MemberName(key)) { slot in
                if let existing = slot {
                    slot = try combine(existing, value)
                } else {
                    slot = value
                }
            }
        }
    }

    /// This object with the members of `other` added; as `merge(_:uniquingKeysWith:)` does.
    ///
    /// - Throws: Whatever `combine` throws.
    public func merging(
        _ other: JSONObject, uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows -> JSONObject {
        var result = self
        try result.merge(other, uniquingKeysWith: combine)
        return result
    }

    /// This object with name–value pairs added, calling `combine` when a name is already present.
    ///
    /// - Throws: Whatever `combine` throws.
    public func merging(
        _ other: some Sequence<(key: String, value: JSONValue)>,
        uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows -> JSONObject {
        var result = self
        try result.merge(other, uniquingKeysWith: combine)
        return result
    }
}
