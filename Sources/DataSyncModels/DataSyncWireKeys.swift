/// The member names one model reads from its wire object, for the byte reader of
/// ``DataSyncEnvelope``: it keeps the values of these members in slots, by position, and skips
/// (while still checking) every other member, so no table keyed by name is built per answer.
///
/// The members every object has (`id`, `status`, `payload`, the timestamps, `eTag`) come first,
/// in a fixed order; each model adds its own.
///
/// A class, so the reader holding it retains one reference, not its three arrays.
package final class DataSyncWireKeys: Sendable {
    /// A model read a member its list leaves out (see ``DataSyncWireReader/value(_:)``).
    package struct Unlisted: Error {
        package let key: String
    }

    /// The members every DataSync object has, in slot order.
    static let common = ["id", "status", "payload", "createdAt", "updatedAt", "expiresAt", "eTag"]
    /// Where `payload` sits in every list.
    static let payloadSlot = 2

    /// The names, slot by slot.
    package let names: [String]
    /// The UTF-8 of every name, one after another; `ends[i]` is where name `i` stops.
    private let utf8: [UInt8]
    private let ends: [Int]

    /// The common members followed by `own` (names must be plain ASCII and distinct).
    package init(adding own: [String]) {
        names = Self.common + own
        var utf8: [UInt8] = []
        var ends: [Int] = []
        for name in names {
            utf8.append(contentsOf: name.utf8)
            ends.append(utf8.count)
        }
        self.utf8 = utf8
        self.ends = ends
    }

    /// The slot of `key`. Lengths are compared first (a stored count for native strings): most
    /// names differ in length, which spares the string comparison.
    @inline(__always)
    func slot(of key: String) -> Int? {
        let count = key.utf8.count
        for slot in names.indices where names[slot].utf8.count == count && names[slot] == key { return slot }
        return nil
    }

    /// The slot of the name whose UTF-8 is `bytes[start..<start + count]`, compared byte for byte
    /// (which is JSON's comparison of names: by their Unicode scalars).
    @inline(__always)
    func slot(of bytes: UnsafeRawBufferPointer, start: Int, count: Int) -> Int? {
        utf8.withUnsafeBufferPointer { names in
            ends.withUnsafeBufferPointer { ends in
                var nameStart = 0
                for slot in 0..<ends.count {
                    let nameEnd = ends[slot]
                    defer { nameStart = nameEnd }
                    guard nameEnd - nameStart == count else { continue }
                    var offset = 0
                    while offset < count, names[nameStart + offset] == bytes[start + offset] { offset += 1 }
                    if offset == count { return slot }
                }
                return nil
            }
        }
    }
}

extension DataSyncWireKeys {
    /// Users, channels and entities.
    static let entity = DataSyncWireKeys(adding: ["entityClass", "entityClassVersion", "entityClassLevel"])
    /// Memberships, with the sides under both their names (see `PubNubDataSyncMembership`).
    static let membership = DataSyncWireKeys(adding: [
        "relationshipClass", "relationshipClassVersion", "channelId", "entityAId", "userId", "entityBId",
    ])
    /// Relationships.
    static let relationship = DataSyncWireKeys(adding: [
        "relationshipClass", "relationshipClassVersion", "entityAId", "entityBId",
    ])
}
