import Foundation

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
        case .small(let members): return members.position(of: name).map { Index(position: .small($0)) }
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
