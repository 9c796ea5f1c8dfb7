/// An ordered list of HTTP header fields with case-insensitive lookup by name.
///
/// Order and the spelling of names are kept as given, so requests can be compared exactly in
/// tests; lookups ignore ASCII case, as RFC 9110 requires.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The name as given.
        public var name: String
        /// The value as sent, without the surrounding whitespace.
        public var value: String

        /// Creates a field; the name keeps its case (lookups ignore it) and neither part is checked
        /// for characters HTTP forbids.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Creates headers from fields, kept in order.
    public init(_ fields: [Field] = []) { self.fields = fields }

    /// Creates headers from name/value pairs, kept in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value for `name`, ignoring case. Setting replaces every field of that name with
    /// one (in place of the first), or removes them all when `nil`.
    public subscript(name: String) -> String? {
        get { fields.first { Self.namesMatch($0.name, name) }?.value }
        set {
            if let newValue {
                replaceOrAdd(name: name, value: newValue)
            } else {
                remove(name: name)
            }
        }
    }

    /// Every value for `name`, ignoring case, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` exists, ignoring case.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    /// Appends a field, keeping any with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces the first field named `name` and removes the others, or appends one.
    public mutating func replaceOrAdd(name: String, value: String) {
        if let index = fields.firstIndex(where: { Self.namesMatch($0.name, name) }) {
            fields[index] = Field(name: name, value: value)
            var position = fields.index(after: index)
            while position < fields.endIndex {
                if Self.namesMatch(fields[position].name, name) {
                    fields.remove(at: position)
                } else {
                    position += 1
                }
            }
        } else {
            add(name: name, value: value)
        }
    }

    /// Removes every field named `name`, ignoring case.
    public mutating func remove(name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// `Name: value` lines, with the values of ``secretNames`` replaced by `REDACTED`.
    public var description: String {
        fields.map(\.description).joined(separator: "\n")
    }

    /// Header names whose values are credentials: `Authorization`, `Proxy-Authorization`, `Cookie`
    /// and `Set-Cookie`. Descriptions and mirrors of headers show `REDACTED` for them; the values
    /// themselves are sent and returned unchanged.
    public static let secretNames: [String] = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]

    /// Whether the header `name` carries a credential (one of ``secretNames``, ignoring case).
    public static func isSecret(_ name: String) -> Bool {
        secretNames.contains { namesMatch($0, name) }
    }

    /// Compares header names as RFC 9110 does: ASCII case-insensitively.
    public static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        for (a, b) in zip(lhs.utf8, rhs.utf8) where a != b {
            let lowerA = a >= 0x41 && a <= 0x5A ? a + 0x20 : a
            let lowerB = b >= 0x41 && b <= 0x5A ? b + 0x20 : b
            if lowerA != lowerB { return false }
        }
        return true
    }
}

extension HTTPHeaders: CustomReflectable {
    /// The fields, each with a secret value redacted, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: fields.map(\.description), displayStyle: .collection)
    }
}

extension HTTPHeaders.Field: CustomStringConvertible, CustomReflectable {
    /// `Name: value`, or `Name: REDACTED` for one of ``HTTPHeaders/secretNames``.
    public var description: String {
        "\(name): \(HTTPHeaders.isSecret(name) ? "REDACTED" : value)"
    }

    /// The name and the value, redacted like ``description``.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["name": name, "value": HTTPHeaders.isSecret(name) ? "REDACTED" : value],
            displayStyle: .struct)
    }
}
