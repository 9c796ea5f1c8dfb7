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
    /// A member name that compares and hashes by its UTF-8 bytes, which for Swift strings (always
    /// valid Unicode) is the same as comparing Unicode scalars.
    package struct MemberName: Hashable, Sendable {
        package let string: String

        @inline(__always)
        package init(_ string: String) { self.string = string }

        @inline(__always)
        package static func == (lhs: MemberName, rhs: MemberName) -> Bool { ScalarText.equal(lhs.string, rhs.string) }

        @inline(__always)
        package func hash(into hasher: inout Hasher) { ScalarText.hash(string, into: &hasher) }
    }

    /// One member of a small object.
    ///
    /// A struct rather than a `(key:value:)` tuple: an array of tuples is destroyed through the
    /// runtime's generic tuple witness, one call per field of every member, where a struct has a
    /// destroy function of its own (destroying parsed payloads was a sixth of a parse's cost).
    package struct Member: Sendable {
        package var key: MemberName
        package var value: JSONValue

        @inline(__always)
        package init(key: MemberName, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

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

    /// The position of `name` in a small object's members.
    @inline(__always)
    static func position(of name: MemberName, in members: ContiguousArray<Member>) -> Int? {
        members.withUnsafeBufferPointer { buffer in
            for position in buffer.indices where buffer[position].key == name { return position }
            return nil
        }
    }

    /// The value stored under `name`.
    @inline(__always)
    func value(for name: MemberName) -> JSONValue? {
        switch storage {
        case .small(let members):
            guard let position = Self.position(of: name, in: members) else { return nil }
            return members[position].value
        case .hashed(let table):
            return table[name]
        }
    }

    /// Adds a member whose name is known to be absent, moving to the hash table when the array is
    /// full.
    static func appendNew(_ name: MemberName, _ value: JSONValue, to members: inout ContiguousArray<Member>)
        -> [MemberName: JSONValue]?
    {
        if members.count < smallObjectLimit {
            members.append(Member(key: name, value: value))
            return nil
        }
        var table = [MemberName: JSONValue](minimumCapacity: members.count * 2)
        for member in members { table[member.key] = member.value }
        table[name] = value
        return table
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
                if let position = Self.position(of: name, in: members) {
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
                        if let value, let table = Self.appendNew(name, value, to: &members) {
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
                if let position = Self.position(of: name, in: members) {
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
                        if let table = Self.appendNew(name, value, to: &members) {
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

// MARK: - Collection

extension JSONObject: Collection {
    /// A position of a member in the object.
    public struct Index: Comparable, Sendable {
        enum Position: Equatable, Sendable {
            case small(Int)
            case hashed(Dictionary<MemberName, JSONValue>.Index)
        }

        let position: Position

        /// Orders positions as the object's iteration does.
        public static func < (lhs: Index, rhs: Index) -> Bool {
            switch (lhs.position, rhs.position) {
            case (.small(let left), .small(let right)): left < right
            case (.hashed(let left), .hashed(let right)): left < right
            // Positions of the two forms never belong to one object; order them apart.
            case (.small, .hashed): true
            case (.hashed, .small): false
            }
        }
    }

    /// The position of the first member, or ``endIndex`` when the object is empty.
    public var startIndex: Index { Self.startIndex(of: storage) }

    /// The position after the last member.
    public var endIndex: Index { Self.endIndex(of: storage) }

    /// The position after `index`.
    public func index(after index: Index) -> Index { Self.index(after: index, in: storage) }

    static func startIndex(of storage: Storage) -> Index {
        switch storage {
        case .small: Index(position: .small(0))
        case .hashed(let table): Index(position: .hashed(table.startIndex))
        }
    }

    static func endIndex(of storage: Storage) -> Index {
        switch storage {
        case .small(let members): Index(position: .small(members.count))
        case .hashed(let table): Index(position: .hashed(table.endIndex))
        }
    }

    static func index(after index: Index, in storage: Storage) -> Index {
        switch (storage, index.position) {
        case (.hashed(let table), .hashed(let position)): Index(position: .hashed(table.index(after: position)))
        case (_, .small(let position)): Index(position: .small(position + 1))
        // An index of the other form is not a position of this object; step to the end.
        case (_, .hashed): endIndex(of: storage)
        }
    }

    /// The member at `position`, which must be a valid position of the storage.
    static func member(at index: Index, in storage: Storage) -> Member {
        switch (storage, index.position) {
        case (.small(let members), .small(let position)): return members[position]
        case (.hashed(let table), .hashed(let position)):
            let member = table[position]
            return Member(key: member.key, value: member.value)
        // An index taken from another object: out of range here, so it traps as a stale index of a
        // Dictionary does. Only a caller's misuse of an index reaches these two cases.
        case (.small(let members), .hashed): return members[members.endIndex]  // safe: traps on misuse only
        case (.hashed(let table), .small):
            let member = table[table.endIndex]  // safe: traps on misuse only
            return Member(key: member.key, value: member.value)
        }
    }

    /// The member at `position`.
    public subscript(position: Index) -> (key: String, value: JSONValue) {
        let member = Self.member(at: position, in: storage)
        return (key: member.key.string, value: member.value)
    }

    /// The position of the member named `key`, or `nil` when there is none.
    public func index(forKey key: String) -> Index? {
        let name = MemberName(key)
        switch storage {
        case .small(let members): return Self.position(of: name, in: members).map { Index(position: .small($0)) }
        case .hashed(let table): return table.index(forKey: name).map { Index(position: .hashed($0)) }
        }
    }

    /// The number of members.
    public var underestimatedCount: Int { count }

    /// Iterates the members in no particular order.
    public struct Iterator: IteratorProtocol {
        var small: ContiguousArray<Member>
        var position = 0
        var hashed: Dictionary<MemberName, JSONValue>.Iterator?

        init(_ storage: Storage) {
            switch storage {
            case .small(let members):
                small = members
                hashed = nil
            case .hashed(let table):
                small = []
                hashed = table.makeIterator()
            }
        }

        /// The next member, or `nil` after the last.
        public mutating func next() -> (key: String, value: JSONValue)? {
            if position < small.count {
                let member = small[position]
                position += 1
                return (key: member.key.string, value: member.value)
            }
            guard let member = hashed?.next() else { return nil }
            return (key: member.key.string, value: member.value)
        }
    }

    /// An iterator over the members.
    public func makeIterator() -> Iterator { Iterator(storage) }

    /// Calls `body` with each member's name and value, in iteration order, without making
    /// `String` pairs.
    @inline(__always)
    package func forEachMember(_ body: (MemberName, JSONValue) throws -> Void) rethrows {
        switch storage {
        case .small(let members):
            for member in members { try body(member.key, member.value) }
        case .hashed(let table):
            for (key, value) in table { try body(key, value) }
        }
    }

    /// The member names of an object. `contains(_:)` compares by Unicode scalars and does not
    /// scan a large object.
    public struct Keys: Collection, Sendable {
        let storage: Storage

        /// The position of the first name.
        public var startIndex: Index { JSONObject.startIndex(of: storage) }
        /// The position after the last name.
        public var endIndex: Index { JSONObject.endIndex(of: storage) }
        /// The position after `index`.
        public func index(after index: Index) -> Index { JSONObject.index(after: index, in: storage) }
        /// The name at `position`.
        public subscript(position: Index) -> String { JSONObject.member(at: position, in: storage).key.string }
        /// The number of names.
        public var count: Int { JSONObject(storageForView: storage).count }
        /// Whether there are no names.
        public var isEmpty: Bool { count == 0 }

        /// Whether the object has a member named exactly `key` (same Unicode scalars).
        public func contains(_ key: String) -> Bool {
            JSONObject(storageForView: storage).value(for: MemberName(key)) != nil
        }
    }

    /// The member values of an object. Values can be replaced in place through an index
    /// (`members.values[index] = 1`), without looking the name up again.
    public struct Values: MutableCollection, Sendable {
        var storage: Storage

        /// The position of the first value.
        public var startIndex: Index { JSONObject.startIndex(of: storage) }
        /// The position after the last value.
        public var endIndex: Index { JSONObject.endIndex(of: storage) }
        /// The position after `index`.
        public func index(after index: Index) -> Index { JSONObject.index(after: index, in: storage) }
        /// The value at `position`.
        public subscript(position: Index) -> JSONValue {
            get { JSONObject.member(at: position, in: storage).value }
            _modify {
                switch (storage, position.position) {
                case (.small(var members), .small(let offset)):
                    storage = .small([])
                    defer { storage = .small(members) }
                    yield &members[offset].value
                case (.hashed(var table), .hashed(let offset)):
                    storage = .small([])
                    defer { storage = .hashed(table) }
                    yield &table.values[offset]
                default:
                    // Not a position of this object: read it as `get` does (which traps).
                    var value = JSONObject.member(at: position, in: storage).value
                    yield &value
                }
            }
        }
        /// The number of values.
        public var count: Int { JSONObject(storageForView: storage).count }
        /// Whether there are no values.
        public var isEmpty: Bool { count == 0 }
    }

    @inline(__always)
    init(storageForView storage: Storage) { self.storage = storage }
}

// MARK: - Equality, literals, printing, Codable

extension JSONObject: Hashable {
    /// Whether both objects have the same names (by Unicode scalars) with equal values.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        if case .hashed(let left) = lhs.storage, case .hashed(let right) = rhs.storage { return left == right }
        guard lhs.count == rhs.count else { return false }
        // Names are distinct on each side and the counts agree, so every member of one side
        // finding an equal member on the other means the sets are the same.
        switch lhs.storage {
        case .small(let members):
            for member in members {
                guard let other = rhs.value(for: member.key), other == member.value else { return false }
            }
        case .hashed(let table):
            for (key, value) in table {
                guard let other = rhs.value(for: key), other == value else { return false }
            }
        }
        return true
    }

    /// Hashes consistently with ``==(_:_:)``; member order and storage form do not matter.
    public func hash(into hasher: inout Hasher) {
        // Each member is hashed on its own and the results combined with XOR, which does not
        // depend on order.
        var combined = 0
        forEachMember { key, value in
            var memberHasher = Hasher()
            memberHasher.combine(key)
            memberHasher.combine(value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Member names are strings.
    public typealias Key = String
    /// Member values are JSON values.
    public typealias Value = JSONValue

    /// Creates an object from a literal. When a name repeats, the last value wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension JSONObject: CustomStringConvertible {
    /// The compact JSON text of the object, names sorted.
    public var description: String { JSONValue.object(self).description }
}

extension JSONObject: JSONCodable {
    /// Decodes an object. With ``JSONValueDecoder`` every member survives; through another
    /// decoder (Foundation's `JSONDecoder`) members whose names are canonically equivalent may
    /// already have been merged by that decoder.
    ///
    /// - Throws: `DecodingError.typeMismatch` when the value is not an object.
    public init(from decoder: any Decoder) throws {
        guard case .object(let members) = try JSONValue(from: decoder) else {
            throw DecodingError.typeMismatch(
                JSONObject.self, .init(codingPath: decoder.codingPath, debugDescription: "not a JSON object"))
        }
        self = members
    }

    /// Encodes the object as a keyed container.
    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(self).encode(to: encoder)
    }

    /// This object as `JSONValue.object`.
    public func jsonValue() throws -> JSONValue { .object(self) }
}
// MARK: - Scalar-wise text comparison

/// Comparisons of Swift strings by their Unicode scalars rather than by canonical equivalence.
/// UTF-8 encodes scalars so that byte order is scalar order, so every operation works on the
/// bytes.
package enum ScalarText {
    /// Whether `lhs` and `rhs` hold the same scalars.
    @inline(__always)
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        let compared = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                guard let leftStart = leftBytes.baseAddress, let rightStart = rightBytes.baseAddress else {
                    return leftBytes.isEmpty
                }
                return memcmp(leftStart, rightStart, leftBytes.count) == 0
            }
        }
        if let compared, let compared { return compared }
        return left.elementsEqual(right)
    }

    /// Feeds the UTF-8 bytes of `text`, then a terminator no UTF-8 text contains, so that
    /// adjacent strings in a composite hash cannot run into each other.
    @inline(__always)
    package static func hash(_ text: String, into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
        hasher.combine(0xFF as UInt8)
    }

    /// Whether `lhs` sorts before `rhs` in Unicode scalar order.
    package static func less(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// A three-way comparison in Unicode scalar order: negative, zero or positive.
    package static func compare(_ lhs: String, _ rhs: String) -> Int {
        let compared = lhs.utf8.withContiguousStorageIfAvailable { leftBytes in
            rhs.utf8.withContiguousStorageIfAvailable { rightBytes in
                let common = Swift.min(leftBytes.count, rightBytes.count)
                if common > 0, let leftStart = leftBytes.baseAddress, let rightStart = rightBytes.baseAddress {
                    let order = memcmp(leftStart, rightStart, common)
                    if order != 0 { return order < 0 ? -1 : 1 }
                }
                return leftBytes.count == rightBytes.count ? 0 : (leftBytes.count < rightBytes.count ? -1 : 1)
            }
        }
        if let compared, let compared { return compared }
        return compareBytes(lhs.utf8, rhs.utf8)
    }

    private static func compareBytes(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Int {
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let a?, let b?):
                if a != b { return a < b ? -1 : 1 }
            }
        }
    }
}
