import JSONCore

/// The byte reader met something other than a well-formed answer; the tree decoder decides what
/// the body is.
struct OffTheFastPath: Error {}

/// The member names the answer uses, told apart from their bytes.
private enum AnswerKey {
    case a, b, c, d, e, f, i, k, m, o, p, r, s, t, u, cmt, other

    init<Bytes: Collection<UInt8>>(_ name: Bytes) {
        var iterator = name.makeIterator()
        guard let first = iterator.next() else {
            self = .other
            return
        }
        guard let second = iterator.next() else {
            self = Self.single(first)
            return
        }
        if first == UInt8(ascii: "c"), second == UInt8(ascii: "m"), iterator.next() == UInt8(ascii: "t"),
            iterator.next() == nil
        {
            self = .cmt
        } else {
            self = .other
        }
    }

    /// The name held by `bytes[start..<end]`, read without building a slice.
    @inline(__always)
    init(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        switch end - start {
        case 1: self = Self.single(bytes[start])
        case 3:
            let isCMT =
                bytes[start] == UInt8(ascii: "c") && bytes[start + 1] == UInt8(ascii: "m")
                && bytes[start + 2] == UInt8(ascii: "t")
            self = isCMT ? .cmt : .other
        default: self = .other
        }
    }

    @inline(__always)
    fileprivate static func single(_ byte: UInt8) -> AnswerKey {
        switch byte {
        case UInt8(ascii: "a"): .a
        case UInt8(ascii: "b"): .b
        case UInt8(ascii: "c"): .c
        case UInt8(ascii: "d"): .d
        case UInt8(ascii: "e"): .e
        case UInt8(ascii: "f"): .f
        case UInt8(ascii: "i"): .i
        case UInt8(ascii: "k"): .k
        case UInt8(ascii: "m"): .m
        case UInt8(ascii: "o"): .o
        case UInt8(ascii: "p"): .p
        case UInt8(ascii: "r"): .r
        case UInt8(ascii: "s"): .s
        case UInt8(ascii: "t"): .t
        case UInt8(ascii: "u"): .u
        default: .other
        }
    }
}

/// A string made from `count` bytes at `start` of the answer.
private struct SeenString {
    let start: Int
    let count: Int
    let value: String
}

/// The strings the byte reader made for envelope fields (`c`, `i`, `a`, `k`, `b`, `cmt`), by
/// their bytes, to reuse when the same bytes come back: an answer repeats one subscribe key and
/// shard in every envelope and a few channels and publishers across them. Direct-mapped on the
/// first and last bytes and the length; a slot holds the last string that landed there.
private struct SeenStrings {
    static let slotCount = 32
    private var slots = Array(repeating: SeenString(start: 0, count: -1, value: ""), count: SeenStrings.slotCount)

    /// The slot for `count` bytes at `start` (`count` > 0).
    @inline(__always)
    static func slot(_ bytes: UnsafeRawBufferPointer, start: Int, count: Int) -> Int {
        // Names that differ only in their last character (`room.1`, `room.2`) land in
        // neighbouring slots.
        (Int(bytes[start + count - 1]) &+ Int(bytes[start]) &* 5 &+ count &* 3) & (slotCount - 1)
    }

    /// The string held for exactly these bytes, or nil.
    @inline(__always)
    func string(_ bytes: UnsafeRawBufferPointer, start: Int, count: Int, slot: Int) -> String? {
        let hit = slots.withUnsafeBufferPointer { slots in
            slots[slot].count == count && JSONValueReader.bytesEqual(bytes, slots[slot].start, start, count: count)
        }
        return hit ? slots[slot].value : nil
    }

    mutating func remember(_ value: String, start: Int, count: Int, slot: Int) {
        slots[slot] = SeenString(start: start, count: count, value: value)
    }
}

/// Reads `{"t":{…},"m":[{…},…]}` from the bytes: envelope members go straight into typed fields
/// (timetokens from their digits, names from ASCII slices), and only payloads, metadata and
/// members not known here are parsed by JSONCore, which also checks every byte this reader skips.
///
/// It accepts exactly the well-formed answers and gives up (``OffTheFastPath``) on anything else,
/// including answers the tree decoder would turn down, so the tree decoder keeps the last word on
/// errors. Field rules are the tree decoder's: the last of repeated keys wins, unknown keys are
/// ignored, and each field is read with the same accessor (`stringValue`, `intValue`,
/// ``SubscribeResponseDecoder/timetoken(_:)``) whenever the fast form does not apply.
struct AnswerReader {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var values: JSONValueReader
    /// Plain strings already read for envelope fields, to reuse when the same bytes come back.
    private var seen = SeenStrings()

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        values = JSONValueReader(bytes)
    }

    private typealias Problem = SubscribeResponseDecoder.Problem
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    mutating func answer() throws(OffTheFastPath) -> SubscribeResponse {
        skipSpace()
        try consume(UInt8(ascii: "{"))
        var cursor: SubscribeCursor?
        var envelopes: [SubscribeEnvelope] = []
        var problems: [String] = []
        if try objectHasMembers() {
            repeat {
                switch try key() {
                case .t: cursor = try self.cursor(depth: 1)
                case .m: (envelopes, problems) = try messages()
                default: try skipValue(depth: 1)
                }
            } while try nextMember()
        }
        skipSpace()
        guard index == bytes.count, let cursor else { throw OffTheFastPath() }
        return SubscribeResponse(cursor: cursor, envelopes: envelopes, problems: problems)
    }

    /// `m`: an array whose objects become envelopes and whose other items become problems.
    private mutating func messages() throws(OffTheFastPath) -> ([SubscribeEnvelope], [String]) {
        try consume(UInt8(ascii: "["))
        var envelopes: [SubscribeEnvelope] = []
        // Room for one envelope per 128 bytes of the answer, as a first guess that saves the
        // array's regrowth (and the moves of every envelope it makes) for typical payloads.
        envelopes.reserveCapacity(Swift.min(1_024, bytes.count / 128))
        var problems: [String] = []
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return (envelopes, problems)
        }
        var position = 0
        repeat {
            skipSpace()
            if peek() == UInt8(ascii: "{") {
                if let problem = try envelope(into: &envelopes) {
                    problems.append("m[\(position)]: \(problem.text)")
                }
            } else {
                try skipValue(depth: 2)
                problems.append("m[\(position)]: not an object")
            }
            position += 1
        } while try nextElement()
        return (envelopes, problems)
    }

    /// One object of `m` (three containers deep: the answer, `m`, the envelope), appended to
    /// `envelopes` in place (a `Result` in between cost a copy of every envelope), or its problem.
    private mutating func envelope(into envelopes: inout [SubscribeEnvelope]) throws(OffTheFastPath) -> Problem? {
        try consume(UInt8(ascii: "{"))
        // Fields are read into locals and the envelope is made once at the end, from their last
        // uses (a `var` envelope filled in place was copied field by field).
        var channel: String?
        var published: SubscribeCursor?
        var typeValue: JSONValue?
        var payload = JSONValue.null
        var publisher: String?
        var shard: String?
        var flags: Int?
        var subscribeKey: String?
        var subscriptionMatch: String?
        var metadata: JSONValue?
        var sequence: Int?
        var origination: SubscribeCursor?
        var customMessageType: String?
        if try objectHasMembers() {
            repeat {
                switch try key() {
                case .c: channel = try string(depth: 3)
                case .p: published = try cursor(depth: 3)
                case .d: payload = try value(depth: 3)
                case .e: typeValue = try value(depth: 3)
                case .i: publisher = try string(depth: 3)
                case .a: shard = try string(depth: 3)
                case .f: flags = try value(depth: 3).intValue
                case .k: subscribeKey = try string(depth: 3)
                case .b: subscriptionMatch = try string(depth: 3)
                case .u:
                    let value = try value(depth: 3)
                    metadata = value.isNull ? JSONValue?.none : value
                case .s: sequence = try value(depth: 3).intValue
                case .o: origination = try cursor(depth: 3)
                case .cmt: customMessageType = try string(depth: 3)
                case .m, .r, .t, .other: try skipValue(depth: 3)
                }
            } while try nextMember()
        }
        guard let channel = consume channel else { return Problem(text: "no \"c\" channel") }
        guard let published else { return Problem(text: "no readable \"p\" timetoken") }
        var type: Int?
        if let raw = typeValue, !raw.isNull {
            guard let number = raw.intValue else { return Problem(text: "\"e\" is not an integer") }
            type = number
        }
        // Every field is consumed, so each is moved into the envelope rather than retained. (The
        // compiler still builds the envelope in a temporary and copies it into the array: neither
        // returning it, nor filling a `var` envelope, nor `consume` avoided that copy.)
        let envelope = SubscribeEnvelope(
            shard: consume shard, flags: flags, type: type, publisher: consume publisher, sequence: sequence,
            published: published, origination: origination, subscribeKey: consume subscribeKey,
            channel: consume channel, subscriptionMatch: consume subscriptionMatch, payload: consume payload,
            metadata: consume metadata, customMessageType: consume customMessageType)
        envelopes.append(consume envelope)
        return nil
    }

    /// `{"t": <timetoken>, "r": <region>}`, or nil (the value consumed) when it is not one.
    /// `depth` counts the containers around the cursor object.
    private mutating func cursor(depth: Int) throws(OffTheFastPath) -> SubscribeCursor? {
        guard peek() == UInt8(ascii: "{") else {
            try skipValue(depth: depth)
            return nil
        }
        index += 1
        var timetoken: Timetoken?
        var region: Int? = 0
        if try objectHasMembers() {
            repeat {
                switch try key() {
                case .t: timetoken = try self.timetoken(depth: depth + 1)
                case .r: region = try SubscribeResponseDecoder.region(value(depth: depth + 1))
                default: try skipValue(depth: depth + 1)
                }
            } while try nextMember()
        }
        guard let timetoken, let region else { return nil }
        return SubscribeCursor(timetoken: timetoken, region: region)
    }

    /// A timetoken; a string of digits is read in place, anything else as a value.
    private mutating func timetoken(depth: Int) throws(OffTheFastPath) -> Timetoken? {
        if peek() == Self.quote {
            var position = index + 1
            var number: UInt64 = 0
            var overflowed = false
            // Eight digits at a time while eight bytes are all digits (two words cover the 17
            // digits of a timetoken); sixteen digits always fit UInt64.
            var words = 0
            while words < 2, position + 8 <= bytes.count,
                let eight = Self.eightDigits(bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            {
                number = number &* 100_000_000 &+ eight
                position += 8
                words += 1
            }
            // Nineteen digits always fit UInt64, so those need no overflow checks.
            let unchecked = Swift.min(bytes.count, index + 1 + 19)
            while position < unchecked {
                let digit = bytes[position] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                number = number &* 10 &+ UInt64(digit)
                position += 1
            }
            while position < bytes.count {
                let digit = bytes[position] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                let (multiplied, overflow) = number.multipliedReportingOverflow(by: 10)
                let (added, carry) = multiplied.addingReportingOverflow(UInt64(digit))
                overflowed = overflowed || overflow || carry
                number = added
                position += 1
            }
            if position > index + 1, position < bytes.count, bytes[position] == Self.quote {
                index = position + 1
                // Timetoken(String) is nil past UInt64.max: the same reading as the tree decoder's.
                return overflowed ? nil : number
            }
        }
        return try SubscribeResponseDecoder.timetoken(value(depth: depth))
    }

    /// The value of eight ASCII digits loaded from memory (first digit in the lowest byte on a
    /// little-endian machine), or nil when any of the eight bytes is not a digit.
    @inline(__always)
    static func eightDigits(_ loaded: UInt64) -> UInt64? {
        let word = UInt64(littleEndian: loaded)
        // Every byte is 0x30–0x39 exactly when its high nibble is 3 and adding 6 does not carry
        // into the high nibble.
        let highNibbles = word & 0xF0F0_F0F0_F0F0_F0F0
        let carried = (word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0
        guard highNibbles | (carried >> 4) == 0x3333_3333_3333_3333 else { return nil }
        // Pairs, then quadruples, then all eight digits combined in place.
        var value = word & 0x0F0F_0F0F_0F0F_0F0F
        value = (value &* (10 << 8 + 1)) >> 8 & 0x00FF_00FF_00FF_00FF
        value = (value &* (100 << 16 + 1)) >> 16 & 0x0000_FFFF_0000_FFFF
        value = (value &* (10_000 << 32 + 1)) >> 32
        return value
    }

    /// A member that should be a string: a plain ASCII string is sliced (or, when the same bytes
    /// were read for an envelope field before, that string is reused), anything else parsed.
    private mutating func string(depth: Int) throws(OffTheFastPath) -> String? {
        if peek() == Self.quote {
            let start = index + 1
            var position = start
            while position < bytes.count {
                let byte = bytes[position]
                if byte == Self.quote {
                    index = position + 1
                    let count = position - start
                    guard count > 0 else { return "" }
                    let slot = SeenStrings.slot(bytes, start: start, count: count)
                    if let value = seen.string(bytes, start: start, count: count, slot: slot) { return value }
                    let value = String(
                        decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                    seen.remember(value, start: start, count: count, slot: slot)
                    return value
                }
                // Escapes, control characters and non-ASCII (which needs validating) go to JSONCore.
                guard byte >= 0x20, byte < 0x80, byte != Self.backslash else { break }
                position += 1
            }
        }
        return try value(depth: depth).stringValue
    }

    /// Any value; a plain integer literal is read in place, anything else by JSONCore.
    /// `depth` counts the containers around the value, so JSONCore's nesting limit holds as in a
    /// whole-document parse.
    private mutating func value(depth: Int) throws(OffTheFastPath) -> JSONValue {
        if let number = integer() { return .int(number) }
        do {
            let (value, end) = try values.value(at: index, depth: depth)
            index = end
            return value
        } catch {
            throw OffTheFastPath()
        }
    }

    private mutating func skipValue(depth: Int) throws(OffTheFastPath) {
        _ = try value(depth: depth)
    }

    /// An integer literal of at most 18 digits (so it fits `Int64`) with no fraction or exponent,
    /// consumed; nil, with nothing consumed, for any other text.
    private mutating func integer() -> Int64? {
        var position = index
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let first = position
        var number: Int64 = 0
        while position < bytes.count {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            guard position - first < 18 else { return nil }
            number = number &* 10 &+ Int64(digit)  // at most 18 digits: no overflow
            position += 1
        }
        guard position > first else { return nil }
        // A leading zero before more digits is not JSON: JSONCore reports it.
        if bytes[first] == UInt8(ascii: "0"), position - first > 1 { return nil }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        index = position
        return negative ? -number : number
    }

    /// A member name and its `:`, classified; names with escapes or non-ASCII bytes are decoded by
    /// JSONCore first, so `"\u0063"` is `c`.
    private mutating func key() throws(OffTheFastPath) -> AnswerKey {
        skipSpace()
        // The common case: a one-letter name this reader knows (so a plain letter, not an
        // escape), its closing quote, and the `:` straight after.
        if index + 3 < bytes.count, bytes[index] == Self.quote, bytes[index + 2] == Self.quote,
            bytes[index + 3] == UInt8(ascii: ":")
        {
            let key = AnswerKey.single(bytes[index + 1])
            if key != .other {
                index += 4
                skipSpace()
                return key
            }
        }
        guard peek() == Self.quote else { throw OffTheFastPath() }
        let start = index + 1
        var position = start
        var key: AnswerKey?
        while position < bytes.count {
            let byte = bytes[position]
            if byte == Self.quote {
                key = AnswerKey(bytes, from: start, to: position)
                index = position + 1
                break
            }
            guard byte >= 0x20, byte < 0x80, byte != Self.backslash else { break }
            position += 1
        }
        if key == nil {
            guard case .string(let name) = try value(depth: 0) else { throw OffTheFastPath() }
            key = AnswerKey(name.utf8)
        }
        skipSpace()
        try consume(UInt8(ascii: ":"))
        skipSpace()
        return key ?? .other
    }

    /// After an object's `{`: false (the `}` consumed) when it is empty.
    private mutating func objectHasMembers() throws(OffTheFastPath) -> Bool {
        skipSpace()
        guard peek() == UInt8(ascii: "}") else { return true }
        index += 1
        return false
    }

    /// After a member's value: true past a `,`, false past the closing `}`.
    private mutating func nextMember() throws(OffTheFastPath) -> Bool {
        try next(closing: UInt8(ascii: "}"))
    }

    /// After an array item: true past a `,`, false past the closing `]`.
    private mutating func nextElement() throws(OffTheFastPath) -> Bool {
        try next(closing: UInt8(ascii: "]"))
    }

    private mutating func next(closing: UInt8) throws(OffTheFastPath) -> Bool {
        skipSpace()
        switch peek() {
        case UInt8(ascii: ","):
            index += 1
            return true
        case closing:
            index += 1
            return false
        default:
            throw OffTheFastPath()
        }
    }

    private mutating func consume(_ byte: UInt8) throws(OffTheFastPath) {
        guard peek() == byte else { throw OffTheFastPath() }
        index += 1
    }

    /// The byte at the reading position, nil at the end.
    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }
}
