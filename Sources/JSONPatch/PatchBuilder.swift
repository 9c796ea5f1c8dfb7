public import JSONCore

/// Builds a JSON Patch for the fields of one object, DataSync style: every path starts at a root
/// (``JSONPointer/payload`` by default) and continues with member names you pass unescaped.
///
/// Keys are escaped for you: a key `"sizes/eu"` becomes `/payload/sizes~1eu` and `"a~b"` becomes
/// `/payload/a~0b`; dots are kept as they are. Guards added with ``require(_:equals:)-(String...,_)`` come first
/// in ``operations``, so the server checks them before changing anything; the patch is atomic, so a
/// failed guard leaves the object untouched.
///
/// ```swift
/// var patch = PatchBuilder()  // paths under /payload
/// patch.require("status", equals: "active")  // {"op":"test","path":"/status",...} goes first
/// patch.replace("price", with: 79.99)  // /payload/price
/// patch.append("tags", value: "sale")  // /payload/tags/-
/// patch.add("sizes/eu", value: 42)  // /payload/sizes~1eu
/// patch.remove("tempFlag")
/// let operations = patch.operations  // send with an update call, or apply locally
/// ```
///
/// The builder is a value: copy it to branch off variants of a patch.
public struct PatchBuilder: Sendable, Hashable {
    /// Where the keys given to the builder's methods start.
    public var root: JSONPointer
    /// The `test` operations added with ``require(_:equals:)-(String...,_)``, in order.
    public private(set) var guards: [PatchOperation] = []
    /// The other operations, in the order they were added.
    public private(set) var edits: [PatchOperation] = []

    /// Creates an empty builder whose keys start at `root`.
    public init(root: JSONPointer = .payload) {
        self.root = root
    }

    /// The patch: the guards, then the edits.
    public var operations: [PatchOperation] { guards + edits }

    /// Whether no operation has been added.
    public var isEmpty: Bool { guards.isEmpty && edits.isEmpty }

    /// The pointer text for `keys` under ``root``, each key escaped.
    public func path(_ keys: [String]) -> String {
        root.appending(contentsOf: keys).description
    }

    /// Guards the patch: it applies only when the value at `pointer` (from the document root, not
    /// from ``root``) equals `value`. Guards are placed before every edit.
    public mutating func require(_ pointer: JSONPointer, equals value: JSONValue) {
        guards.append(.test(path: pointer.description, value: value))
    }

    /// Guards the patch on the value at `keys`, counted from the document root (not from ``root``):
    /// `patch.require("status", equals: "active")` adds `{"op":"test","path":"/status",...}` first.
    public mutating func require(_ keys: String..., equals value: JSONValue) {
        require(JSONPointer(tokens: keys), equals: value)
    }

    /// Adds a `test` that the value at `keys` (under ``root``) equals `value`, in edit order.
    public mutating func test(_ keys: String..., equals value: JSONValue) {
        edits.append(.test(path: path(keys), value: value))
    }

    /// Adds an `add`: sets the member at `keys` (creating or overwriting it), or inserts into an
    /// array when the last key is an index.
    public mutating func add(_ keys: String..., value: JSONValue) {
        edits.append(.add(path: path(keys), value: value))
    }

    /// Adds an `add` that appends `value` to the array at `keys`.
    public mutating func append(_ keys: String..., value: JSONValue) {
        edits.append(.add(path: path(keys + [JSONPointer.endOfArray]), value: value))
    }

    /// Adds a `replace` of the value at `keys`, which must exist when the patch is applied.
    public mutating func replace(_ keys: String..., with value: JSONValue) {
        edits.append(.replace(path: path(keys), value: value))
    }

    /// Adds a `remove` of the value at `keys`, which must exist when the patch is applied.
    public mutating func remove(_ keys: String...) {
        edits.append(.remove(path: path(keys)))
    }

    /// Adds a `move` of the member `from` to the member `to`, both directly under ``root``.
    ///
    /// - Parameters:
    ///   - from: The member to move, unescaped; it must exist when the patch is applied.
    ///   - to: The member to move it to, unescaped; an existing value there is replaced.
    public mutating func move(from: String, to: String) {
        move(from: [from], to: [to])
    }

    /// Adds a `move` between two key paths under ``root``.
    ///
    /// - Parameters:
    ///   - from: The keys leading to the value to move, unescaped, from ``root`` down.
    ///   - to: The keys of its new place, unescaped; `to` must not lie inside `from`.
    public mutating func move(from: [String], to: [String]) {
        edits.append(.move(from: path(from), path: path(to)))
    }

    /// Adds a `copy` of the member `from` to the member `to`, both directly under ``root``.
    ///
    /// - Parameters:
    ///   - from: The member to copy, unescaped; it must exist when the patch is applied.
    ///   - to: The member to copy it to, unescaped; an existing value there is replaced.
    public mutating func copy(from: String, to: String) {
        copy(from: [from], to: [to])
    }

    /// Adds a `copy` between two key paths under ``root``.
    ///
    /// - Parameters:
    ///   - from: The keys leading to the value to copy, unescaped, from ``root`` down.
    ///   - to: The keys of the place to copy it to, unescaped.
    public mutating func copy(from: [String], to: [String]) {
        edits.append(.copy(from: path(from), path: path(to)))
    }

    /// Adds operations that turn `old` into `new`, both sitting at ``root`` (see
    /// ``Patch/diff(from:to:under:)``).
    ///
    /// - Parameters:
    ///   - old: The value at ``root`` as it is stored now.
    ///   - new: The value it should become; nothing is added when it equals `old`.
    public mutating func addDiff(from old: JSONValue, to new: JSONValue) {
        edits += Patch.diff(from: old, to: new, under: root)
    }

    /// Adds an operation as given (its paths are not changed).
    public mutating func append(_ operation: PatchOperation) {
        edits.append(operation)
    }
}
