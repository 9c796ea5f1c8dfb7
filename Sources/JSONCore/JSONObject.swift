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
/// agrees. All operations are those of a Swift `Dictionary` (hashing the UTF-8 bytes of a name),
/// and the type is a value type with copy-on-write storage.
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

    package var storage: [MemberName: JSONValue]

    /// Creates an empty object.
    public init() { storage = [:] }

    /// Creates an empty object with room for `minimumCapacity` members before it reallocates.
    public init(minimumCapacity: Int) { storage = Dictionary(minimumCapacity: minimumCapacity) }

    package init(storage: [MemberName: JSONValue]) { self.storage = storage }

    /// Creates an object from a Swift dictionary.
    ///
    /// A `[String: JSONValue]` has already merged canonically equivalent keys into one; converting
    /// it keeps whichever spelling the dictionary kept. Build a `JSONObject` directly (or parse the
    /// text) when both spellings must survive.
    public init(_ dictionary: [String: JSONValue]) {
        var storage = [MemberName: JSONValue](minimumCapacity: dictionary.count)
        for (key, value) in dictionary { storage[MemberName(key)] = value }
        self.storage = storage
    }

    /// Creates an object from name–value pairs. Unlike `Dictionary(uniqueKeysWithValues:)`, a
    /// repeated name does not trap: the last value wins, so pairs from untrusted input are safe.
    public init(uniqueKeysWithValues pairs: some Sequence<(String, JSONValue)>) {
        var storage = [MemberName: JSONValue](minimumCapacity: pairs.underestimatedCount)
        for (key, value) in pairs { storage[MemberName(key)] = value }
        self.storage = storage
    }

    /// Creates an object from name–value pairs, calling `combine` with the current and the new
    /// value whenever a name repeats.
    ///
    /// - Throws: Whatever `combine` throws.
    public init(
        _ pairs: some Sequence<(String, JSONValue)>,
        uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows {
        var storage = [MemberName: JSONValue](minimumCapacity: pairs.underestimatedCount)
        for (key, value) in pairs {
            let name = MemberName(key)
            if let existing = storage[name] {
                storage[name] = try combine(existing, value)
            } else {
                storage[name] = value
            }
        }
        self.storage = storage
    }

    /// The value of the member named `key` (compared by Unicode scalars), or `nil` when there is
    /// none. Setting `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get { storage[MemberName(key)] }
        _modify { yield &storage[MemberName(key)] }
    }

    /// The value of the member named `key`, or `defaultValue` when there is none. Mutating
    /// through this subscript stores the member.
    public subscript(key: String, default defaultValue: @autoclosure () -> JSONValue) -> JSONValue {
        get { storage[MemberName(key), default: defaultValue()] }
        _modify { yield &storage[MemberName(key), default: defaultValue()] }
    }

    /// The number of members.
    public var count: Int { storage.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { storage.isEmpty }

    /// The number of members the object can hold before it reallocates.
    public var capacity: Int { storage.capacity }

    /// The member names, in the same (unspecified) order as iteration.
    public var keys: Keys { Keys(base: storage.keys) }

    /// The member values, in the same (unspecified) order as iteration.
    public var values: Values {
        get { Values(storage: storage) }
        _modify {
            // Move the storage out so the yielded view holds the only reference and mutates in place.
            var view = Values(storage: storage)
            storage = [:]
            defer { storage = view.storage }
            yield &view
        }
    }

    /// The member names in ascending order of their Unicode scalars, the order
    /// ``JSONValue/jsonBytes(sortedKeys:)`` writes them in. Unlike `keys.sorted()`, which orders
    /// by Swift's canonical-equivalence rules, two different names never tie.
    public var sortedKeys: [String] {
        storage.keys.map(\.string).sorted(by: ScalarText.less)
    }

    /// The members as a Swift dictionary, for APIs that take one.
    ///
    /// Lossy when two names are canonically equivalent but differ in their scalars: the
    /// dictionary keeps one of them (which one is unspecified).
    public var dictionary: [String: JSONValue] {
        var result = [String: JSONValue](minimumCapacity: storage.count)
        for (key, value) in storage { result[key.string] = value }
        return result
    }

    /// Stores `value` under `key` and returns the value it replaced, or `nil` when the member is
    /// new.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        storage.updateValue(value, forKey: MemberName(key))
    }

    /// Removes the member named `key` and returns its value, or `nil` when there was none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        storage.removeValue(forKey: MemberName(key))
    }

    /// Removes the member at `index` and returns it. `index` must be a valid position of this
    /// object (from ``index(forKey:)`` or iteration, with no mutation since).
    @discardableResult
    public mutating func remove(at index: Index) -> (key: String, value: JSONValue) {
        let removed = storage.remove(at: index.base)
        return (key: removed.key.string, value: removed.value)
    }

    /// Removes every member, keeping the storage when `keepingCapacity` is `true`.
    public mutating func removeAll(keepingCapacity: Bool = false) {
        storage.removeAll(keepingCapacity: keepingCapacity)
    }

    /// Makes room for `minimumCapacity` members.
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        storage.reserveCapacity(minimumCapacity)
    }

    /// An object with the same names and each value transformed.
    ///
    /// - Throws: Whatever `transform` throws.
    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        JSONObject(storage: try storage.mapValues(transform))
    }

    /// An object with the same names and each value transformed, leaving out members whose
    /// transform returns `nil`.
    ///
    /// - Throws: Whatever `transform` throws.
    public func compactMapValues(_ transform: (JSONValue) throws -> JSONValue?) rethrows -> JSONObject {
        JSONObject(storage: try storage.compactMapValues(transform))
    }

    /// The members for which `isIncluded` returns `true`, as an object.
    ///
    /// - Throws: Whatever `isIncluded` throws.
    public func filter(_ isIncluded: ((key: String, value: JSONValue)) throws -> Bool) rethrows -> JSONObject {
        JSONObject(storage: try storage.filter { try isIncluded((key: $0.key.string, value: $0.value)) })
    }

    /// Adds the members of `other`, calling `combine` with the current and the new value when a
    /// name is in both.
    ///
    /// - Throws: Whatever `combine` throws.
    public mutating func merge(
        _ other: JSONObject, uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue
    ) rethrows {
        try storage.merge(other.storage, uniquingKeysWith: combine)
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
            let name = MemberName(key)
            if let existing = storage[name] {
                storage[name] = try combine(existing, value)
            } else {
                storage[name] = value
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
        let base: Dictionary<MemberName, JSONValue>.Index

        /// Orders positions as the object's iteration does.
        public static func < (lhs: Index, rhs: Index) -> Bool { lhs.base < rhs.base }
    }

    /// The position of the first member, or ``endIndex`` when the object is empty.
    public var startIndex: Index { Index(base: storage.startIndex) }

    /// The position after the last member.
    public var endIndex: Index { Index(base: storage.endIndex) }

    /// The position after `index`.
    public func index(after index: Index) -> Index { Index(base: storage.index(after: index.base)) }

    /// The member at `position`.
    public subscript(position: Index) -> (key: String, value: JSONValue) {
        let member = storage[position.base]
        return (key: member.key.string, value: member.value)
    }

    /// The position of the member named `key`, or `nil` when there is none.
    public func index(forKey key: String) -> Index? {
        storage.index(forKey: MemberName(key)).map(Index.init(base:))
    }

    /// Iterates the members in no particular order.
    public struct Iterator: IteratorProtocol {
        var base: Dictionary<MemberName, JSONValue>.Iterator

        /// The next member, or `nil` after the last.
        public mutating func next() -> (key: String, value: JSONValue)? {
            guard let member = base.next() else { return nil }
            return (key: member.key.string, value: member.value)
        }
    }

    /// An iterator over the members.
    public func makeIterator() -> Iterator { Iterator(base: storage.makeIterator()) }

    /// The member names of an object. `contains(_:)` compares by Unicode scalars and does not
    /// scan.
    public struct Keys: Collection, Sendable {
        let base: Dictionary<MemberName, JSONValue>.Keys

        /// The position of the first name.
        public var startIndex: Index { Index(base: base.startIndex) }
        /// The position after the last name.
        public var endIndex: Index { Index(base: base.endIndex) }
        /// The position after `index`.
        public func index(after index: Index) -> Index { Index(base: base.index(after: index.base)) }
        /// The name at `position`.
        public subscript(position: Index) -> String { base[position.base].string }
        /// The number of names.
        public var count: Int { base.count }
        /// Whether there are no names.
        public var isEmpty: Bool { base.isEmpty }

        /// Whether the object has a member named exactly `key` (same Unicode scalars).
        public func contains(_ key: String) -> Bool { base.contains(MemberName(key)) }
    }

    /// The member values of an object. Values can be replaced in place through an index
    /// (`members.values[index] = 1`), without looking the name up again.
    public struct Values: MutableCollection, Sendable {
        var storage: [MemberName: JSONValue]

        /// The position of the first value.
        public var startIndex: Index { Index(base: storage.startIndex) }
        /// The position after the last value.
        public var endIndex: Index { Index(base: storage.endIndex) }
        /// The position after `index`.
        public func index(after index: Index) -> Index { Index(base: storage.index(after: index.base)) }
        /// The value at `position`.
        public subscript(position: Index) -> JSONValue {
            get { storage.values[position.base] }
            _modify { yield &storage.values[position.base] }
        }
        /// The number of values.
        public var count: Int { storage.count }
        /// Whether there are no values.
        public var isEmpty: Bool { storage.isEmpty }
    }
}

// MARK: - Equality, literals, printing, Codable

extension JSONObject: Hashable {
    /// Whether both objects have the same names (by Unicode scalars) with equal values.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.storage == rhs.storage }

    /// Hashes consistently with ``==(_:_:)``; member order does not matter.
    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Member names are strings.
    public typealias Key = String
    /// Member values are JSON values.
    public typealias Value = JSONValue

    /// Creates an object from a literal. When a name repeats, the last value wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var storage = [MemberName: JSONValue](minimumCapacity: elements.count)
        for (key, value) in elements { storage[MemberName(key)] = value }
        self.storage = storage
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
