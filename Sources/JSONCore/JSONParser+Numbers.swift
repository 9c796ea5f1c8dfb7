/// Numbers: integers kept exact, doubles by a fast path where it is exact, else by `Double(_:)`.
extension JSONParser {
    mutating func parseNumber() throws -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") {
            index += 1
        }
        guard index < bytes.count else {
            throw error(.unexpectedEnd, "expected a digit, found the end of the input")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error(.invalidNumber, "numbers cannot have leading zeros", at: start)
            }
        } else if isDigit(bytes[index]) {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        } else if bytes[index] == UInt8(ascii: "I") {
            throw error(.invalidNumber, "Infinity is not a JSON number", at: start)
        } else {
            throw error(.invalidNumber, "expected a digit, found \(describeCurrent())")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error(.invalidNumber, "expected a digit after '.', found \(describeCurrent())")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error(.invalidNumber, "expected a digit in the exponent, found \(describeCurrent())")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let integer = parseInt64(text) {
            return .int(integer)
        }
        if let fast = Self.fastDouble(text) {
            return .double(fast)
        }
        let string = String(decoding: text, as: UTF8.self)
        guard let double = Double(string) else {
            throw error(.invalidNumber, "'\(string)' is not a number", at: start)
        }
        guard double.isFinite else {
            throw error(.numberOutOfRange, "'\(string)' is too large for a 64-bit floating-point number", at: start)
        }
        return .double(double)
    }

    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// Clinger's fast path: when the decimal digits form an integer below 2^53 and the decimal
    /// exponent is within ±22, both operands are exact doubles and one IEEE multiplication or
    /// division gives the correctly rounded result. Anything else returns nil and takes the
    /// standard library's full conversion.
    static func fastDouble(_ text: UnsafeRawBufferPointer) -> Double? {
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var negative = false
        var index = 0
        if index < text.count, text[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var seenDot = false
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                seenDot = true
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                if digits > 15 { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                if seenDot { exponent -= 1 }
            } else {
                break
            }
            index += 1
        }
        if index < text.count {
            // An exponent part: e/E, optional sign, digits.
            index += 1
            var exponentNegative = false
            if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            var written = 0
            while index < text.count {
                written = written * 10 + Int(text[index] - UInt8(ascii: "0"))
                if written > 400 { return nil }
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        guard exponent >= -22 && exponent <= 22 else { return nil }
        var value = Double(mantissa)
        if exponent < 0 {
            value /= exactPowersOfTen[-exponent]
        } else {
            value *= exactPowersOfTen[exponent]
        }
        return negative ? -value : value
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Parses a validated integer literal; `nil` when it overflows `Int64`.
    func parseInt64(_ text: UnsafeRawBufferPointer) -> Int64? {
        var iterator = text.makeIterator()
        var negative = false
        var value: Int64 = 0
        var first = iterator.next()
        if first == UInt8(ascii: "-") {
            negative = true
            first = iterator.next()
        }
        var next = first
        while let byte = next {
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) =
                negative
                ? multiplied.subtractingReportingOverflow(digit) : multiplied.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = added
            next = iterator.next()
        }
        return value
    }
}
