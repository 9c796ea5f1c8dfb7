/// A member name that compares and hashes by its UTF-8 bytes, which for Swift strings (always
/// valid Unicode) is the same as comparing Unicode scalars. `JSONObject.MemberName` names it too.
package struct JSONMemberName: Hashable, Sendable {
    package let string: String

    @inline(__always)
    package init(_ string: String) { self.string = string }

    @inline(__always)
    package static func == (lhs: JSONMemberName, rhs: JSONMemberName) -> Bool {
        ScalarText.equal(lhs.string, rhs.string)
    }

    @inline(__always)
    package func hash(into hasher: inout Hasher) { ScalarText.hash(string, into: &hasher) }
}

/// One member of a small ``JSONObject`` (`JSONObject.Member`).
///
/// A struct rather than a `(key:value:)` tuple: an array of tuples is destroyed through the
/// runtime's generic tuple witness, one call per field of every member, where a struct has a
/// destroy function of its own (destroying parsed payloads was a sixth of a parse's cost).
package struct JSONMember: Sendable {
    package var key: JSONMemberName
    package var value: JSONValue

    @inline(__always)
    package init(key: JSONMemberName, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

// A small object's members: an array searched by name, which the object leaves for a hash table
// once it holds `JSONObject.smallObjectLimit` members.
extension ContiguousArray where Element == JSONMember {
    /// The position of `name`.
    @inline(__always)
    func position(of name: JSONMemberName) -> Int? {
        withUnsafeBufferPointer { buffer in
            for position in buffer.indices where buffer[position].key == name { return position }
            return nil
        }
    }

    /// Adds a member whose name is known to be absent; when the array is full, leaves it alone and
    /// returns the hash table that holds its members and the new one.
    mutating func appendNew(_ name: JSONMemberName, _ value: JSONValue) -> [JSONMemberName: JSONValue]? {
        if count < JSONObject.smallObjectLimit {
            append(JSONMember(key: name, value: value))
            return nil
        }
        var table = [JSONMemberName: JSONValue](minimumCapacity: count * 2)
        for member in self { table[member.key] = member.value }
        table[name] = value
        return table
    }
}
