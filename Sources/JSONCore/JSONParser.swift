// This parser is ours rather than Foundation's JSONSerialization: it keeps integers and doubles
// apart without NSNumber guesswork, reports byte offsets, enforces a nesting limit, and in
// `datasync-bench` it is faster than JSONSerialization followed by a conversion to JSONValue
// (see Documentation/Benchmarks.md for the figures).

/// Options for parsing JSON text into ``JSONValue``.
public struct JSONParsingOptions: Sendable, Hashable {
    /// The deepest nesting of arrays and objects accepted. Deeper input throws
    /// ``JSONError/Code-swift.struct/nestingTooDeep`` instead of exhausting the stack.
    public var maximumDepth: Int
    /// Whether an object with a repeated key is an error (`true`) or the last value wins (`false`).
    public var rejectsDuplicateKeys: Bool

    /// Creates options; the defaults accept any document nested at most 512 deep and let the last
    /// of repeated keys win, as most JSON parsers do.
    ///
    /// - Parameters:
    ///   - maximumDepth: The deepest nesting of arrays and objects accepted; 512 by default. Deeper
    ///     input fails with `nestingTooDeep` instead of exhausting the stack.
    ///   - rejectsDuplicateKeys: Whether an object that repeats a key fails with `duplicateKey`;
    ///     `false` by default, when the last value wins.
    public init(maximumDepth: Int = 512, rejectsDuplicateKeys: Bool = false) {
        self.maximumDepth = maximumDepth
        self.rejectsDuplicateKeys = rejectsDuplicateKeys
    }
}

extension JSONValue {
    /// Parses one JSON document (RFC 8259) from UTF-8 bytes.
    ///
    /// White space may surround the document; anything else after it is an error. Any value may
    /// be the top level, including a bare string or number.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 text of one document, for example a response body; contiguous storage such
    ///     as `[UInt8]` is parsed without copying.
    ///   - options: The nesting limit and the duplicate-key rule; the defaults accept what the service
    ///     sends.
    /// - Throws: ``JSONError`` for invalid UTF-8, truncated or malformed input, numbers out of
    ///   range, and nesting deeper than `options.maximumDepth`.
    public init(parsing bytes: some Collection<UInt8>, options: JSONParsingOptions = JSONParsingOptions()) throws {
        let parsed = try bytes.withContiguousStorageIfAvailable { buffer in
            try JSONParser.parse(UnsafeRawBufferPointer(buffer), options: options)
        }
        if let parsed {
            self = parsed
        } else {
            let copy = Array(bytes)
            self = try copy.withUnsafeBytes { try JSONParser.parse($0, options: options) }
        }
    }

    /// Parses one JSON document from a string.
    ///
    /// - Parameters:
    ///   - text: The text of one document.
    ///   - options: The nesting limit and the duplicate-key rule; the defaults accept what the service
    ///     sends.
    /// - Throws: ``JSONError`` as ``init(parsing:options:)`` does.
    public init(parsing text: String, options: JSONParsingOptions = JSONParsingOptions()) throws {
        var text = text
        self = try text.withUTF8 { try JSONParser.parse(UnsafeRawBufferPointer($0), options: options) }
    }
}

let quote: UInt8 = 0x22
let backslash: UInt8 = 0x5C

/// A recursive-descent JSON parser over a contiguous byte buffer.
struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var index: Int = 0
    var depth: Int = 0
    let options: JSONParsingOptions
    /// Scratch stacks shared by every nesting level: a container's members are collected here and
    /// moved out once, at their final size, instead of growing a fresh array or dictionary
    /// (growth and rehashing were a third of parse time).
    ///
    /// Raw storage (``ScratchStack``) rather than arrays: a push is a store and taking the values
    /// out is a move, with no uniqueness check and no placeholder to destroy per value.
    ///
    /// Each is made at the first container that needs it: a document of scalars or objects only
    /// (a DataSync payload read by `JSONValueReader`) never pays for the element stack, a scalar
    /// for none of them.
    lazy var elementStack = ScratchStack<JSONValue>()
    lazy var memberStack = ScratchStack<JSONObject.Member>()
    /// A fingerprint of each collected member's name (see `fingerprint(_:count:)`), so the check
    /// for repeated names compares integers and looks at the names only when two prints agree.
    lazy var memberPrints = ScratchStack<UInt64>()
    /// Member names already made into strings, by where their bytes are in the buffer: a payload
    /// repeats a few names in every object, and comparing a name's bytes with an earlier
    /// occurrence is cheaper than making (and for longer names allocating) a new `String`.
    /// Direct-mapped, allocated at the first name of the second object: the names of a document
    /// with one object (a small payload) are all different, and building, filling and destroying
    /// the cache's slots cost more than the few names it would hold.
    var nameCache: [CachedName] = []
    /// How many objects the parse has begun, up to 2 (the cache's trigger).
    var objectsBegun = 0

    struct CachedName {
        var start: Int
        var count: Int
        var name: String
    }

    /// A power of two. With 32 slots and the earlier slot function, the one-letter names of a
    /// subscribe answer shared four slots and missed almost every time.
    static let nameCacheSize = 64
    /// Longer names are made afresh every time.
    static let longestCachedName = 32

    static func parse(_ bytes: UnsafeRawBufferPointer, options: JSONParsingOptions) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes, options: options)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.error(.trailingData, "expected the end of the document, found \(parser.describeCurrent())")
        }
        return value
    }

    init(bytes: UnsafeRawBufferPointer, options: JSONParsingOptions) {
        self.bytes = bytes
        self.options = options
    }

    func error(_ code: JSONError.Code, _ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(code: code, message: message, offset: offset ?? index)
    }

    func describeCurrent() -> String {
        guard index < bytes.count else { return "the end of the input" }
        let byte = bytes[index]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws -> JSONValue {
        guard index < bytes.count else {
            throw error(.unexpectedEnd, "expected a value, found the end of the input")
        }
        switch bytes[index] {
        case quote: return .string(try parseString())
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw error(.invalidNumber, "NaN and Infinity are not JSON numbers")
        default:
            throw error(.unexpectedCharacter, "expected a value, found \(describeCurrent())")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        let start = index
        for offset in 0..<count {
            let expected = literal.utf8Start[offset]
            guard start + offset < bytes.count else {
                throw error(.unexpectedEnd, "expected '\(literal)', found the end of the input", at: start + offset)
            }
            guard bytes[start + offset] == expected else {
                index = start + offset
                throw error(.unexpectedCharacter, "expected '\(literal)', found \(describeCurrent())")
            }
        }
        index = start + count
    }

    mutating func enterContainer() throws {
        depth += 1
        if depth > options.maximumDepth {
            throw error(.nestingTooDeep, "arrays and objects are nested deeper than \(options.maximumDepth) levels")
        }
    }

    mutating func parseArray() throws -> JSONValue {
        try enterContainer()
        index += 1  // [
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        let stack = elementStack
        let base = stack.count
        while true {
            skipWhitespace()
            stack.push(try parseValue())
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.unexpectedEnd, "expected ',' or ']' in an array, found the end of the input")
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(moveElements(from: base))
            default:
                throw error(.unexpectedCharacter, "expected ',' or ']' in an array, found \(describeCurrent())")
            }
        }
    }

    mutating func parseObject() throws -> JSONValue {
        try enterContainer()
        if objectsBegun < 2 { objectsBegun += 1 }
        index += 1  // {
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        let stack = memberStack
        let prints = memberPrints
        let base = stack.count
        while true {
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.unexpectedEnd, "expected a key string in an object, found the end of the input")
            }
            guard bytes[index] == quote else {
                throw error(.unexpectedCharacter, "expected a key string in an object, found \(describeCurrent())")
            }
            let (key, print) = try parseName()
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.unexpectedEnd, "expected ':' after an object key, found the end of the input")
            }
            guard bytes[index] == UInt8(ascii: ":") else {
                throw error(.unexpectedCharacter, "expected ':' after an object key, found \(describeCurrent())")
            }
            index += 1
            skipWhitespace()
            stack.push(JSONObject.Member(key: JSONObject.MemberName(key), value: try parseValue()))
            prints.push(print)
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.unexpectedEnd, "expected ',' or '}' in an object, found the end of the input")
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                let members = try collectMembers(from: base)
                return .object(members)
            default:
                throw error(.unexpectedCharacter, "expected ',' or '}' in an object, found \(describeCurrent())")
            }
        }
    }

    /// Moves the elements collected since `base` into an array of their own.
    mutating func moveElements(from base: Int) -> [JSONValue] {
        let stack = elementStack
        var elements: [JSONValue] = []
        elements.reserveCapacity(stack.count - base)
        for position in base..<stack.count { elements.append(stack.moveElement(at: position)) }
        stack.forget(from: base)
        return elements
    }

    /// Moves the members collected since `base` into an object sized once: a small object's array
    /// (names compared, not hashed) up to `JSONObject.smallObjectLimit` members, a dictionary
    /// beyond. A repeated key keeps its first position and its last value, or is an error when the
    /// options say so.
    mutating func collectMembers(from base: Int) throws -> JSONObject {
        let stack = memberStack
        let end = stack.count
        let count = end - base
        if count <= JSONObject.smallObjectLimit {
            if let members = moveDistinctMembers(from: base) { return JSONObject(smallMembers: members) }
            var members = ContiguousArray<JSONObject.Member>()
            members.reserveCapacity(count)
            for position in base..<end {
                let member = stack[position]
                if let existing = members.position(of: member.key) {
                    if options.rejectsDuplicateKeys {
                        throw error(.duplicateKey, "the key \"\(member.key.string)\" appears twice in one object")
                    }
                    members[existing].value = member.value
                } else {
                    members.append(member)
                }
            }
            releaseMembers(from: base)
            return JSONObject(smallMembers: members)
        }
        var members = [JSONObject.MemberName: JSONValue](minimumCapacity: count)
        for position in base..<end {
            let member = stack[position]
            if members.updateValue(member.value, forKey: member.key) != nil && options.rejectsDuplicateKeys {
                throw error(.duplicateKey, "the key \"\(member.key.string)\" appears twice in one object")
            }
        }
        releaseMembers(from: base)
        return JSONObject(storage: members)
    }

    /// Destroys the members collected from `base` on (and their prints).
    mutating func releaseMembers(from base: Int) {
        memberStack.removeAll(from: base)
        memberPrints.removeAll(from: base)
    }

    /// The members collected since `base`, moved (not copied: no reference counting per member)
    /// into an array of their own, when their names are all distinct; nil, with the stack
    /// untouched, when a name repeats.
    mutating func moveDistinctMembers(from base: Int) -> ContiguousArray<JSONObject.Member>? {
        let stack = memberStack
        let prints = memberPrints
        let end = stack.count
        let distinct = prints.withElements { prints in
            stack.withElements { stack in
                for later in base..<end {
                    for earlier in base..<later
                    where prints[earlier] == prints[later] && stack[earlier].key == stack[later].key {
                        return false
                    }
                }
                return true
            }
        }
        guard distinct else { return nil }
        // Appending to a reserved array keeps the allocation specialised (building one through
        // `init(unsafeUninitializedCapacity:)` goes through the standard library's unspecialised
        // buffer initialiser and a run-time metadata lookup, some 500 instructions per object).
        var members = ContiguousArray<JSONObject.Member>()
        members.reserveCapacity(end - base)
        for position in base..<end { members.append(stack.moveElement(at: position)) }
        stack.forget(from: base)
        prints.removeAll(from: base)
        return members
    }
}
