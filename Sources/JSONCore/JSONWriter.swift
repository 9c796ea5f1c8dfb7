extension JSONValue {
    /// Encodes this value as compact UTF-8 JSON text.
    ///
    /// With `sortedKeys` (the default) object members are written in ascending key order, so the
    /// same value always gives the same bytes and request bodies can be compared exactly in tests.
    /// Strings escape `"`, `\` and control characters only; non-ASCII text is written as UTF-8.
    ///
    /// - Throws: ``JSONError`` with ``JSONError/Code-swift.struct/nonFiniteNumber`` when the value
    ///   holds `NaN` or an infinity.
    public func jsonBytes(sortedKeys: Bool = true) throws -> [UInt8] {
        var writer = JSONWriter(sortedKeys: sortedKeys, nonFinite: .throw)
        try writer.write(self)
        return writer.bytes
    }

    /// Encodes this value as compact JSON text; see ``jsonBytes(sortedKeys:)``.
    ///
    /// - Throws: ``JSONError`` when the value holds `NaN` or an infinity.
    public func jsonString(sortedKeys: Bool = true) throws -> String {
        String(decoding: try jsonBytes(sortedKeys: sortedKeys), as: UTF8.self)
    }
}

/// Serialises ``JSONValue`` into a growing byte buffer.
package struct JSONWriter {
    package enum NonFinitePolicy {
        case `throw`
        case null
    }

    package private(set) var bytes: [UInt8] = []
    let sortedKeys: Bool
    let nonFinite: NonFinitePolicy

    package init(sortedKeys: Bool, nonFinite: NonFinitePolicy) {
        self.sortedKeys = sortedKeys
        self.nonFinite = nonFinite
        bytes.reserveCapacity(256)
    }

    package mutating func write(_ value: JSONValue) throws {
        switch value {
        case .null:
            append("null")
        case .bool(let flag):
            append(flag ? "true" : "false")
        case .int(let integer):
            writeInteger(integer)
        case .double(let double):
            try writeDouble(double)
        case .string(let string):
            writeString(string)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                try write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            if sortedKeys && members.count > 1 {
                // Sorting the pairs, not the keys, saves a lookup per member. Scalar order, so two
                // names that differ only in normalisation still come out in one fixed order.
                for member in members.sortedMembers {
                    if !first { bytes.append(UInt8(ascii: ",")) }
                    first = false
                    writeString(member.key.string)
                    bytes.append(UInt8(ascii: ":"))
                    try write(member.value)
                }
            } else {
                try members.forEachMember { key, member in
                    if !first { bytes.append(UInt8(ascii: ",")) }
                    first = false
                    writeString(key.string)
                    bytes.append(UInt8(ascii: ":"))
                    try write(member)
                }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func writeInteger(_ value: Int64) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        // Digits are produced least significant first into a small stack buffer.
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            while count > 0 {
                count -= 1
                bytes.append(digits[count])
            }
        }
    }

    mutating func writeDouble(_ value: Double) throws {
        guard value.isFinite else {
            switch nonFinite {
            case .null:
                append("null")
                return
            case .throw:
                throw JSONError(code: .nonFiniteNumber, message: "\(value) cannot be written as JSON")
            }
        }
        // Swift's description is the shortest text that reads back as the same Double
        // ("79.99", "0.30000000000000004", "1e+300", "-0.0"), and is always valid JSON.
        bytes.append(contentsOf: value.description.utf8)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    package mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                default:
                    append("\\u00")
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0x0F)])
                }
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
