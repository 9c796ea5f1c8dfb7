/// A `multipart/form-data` body (RFC 7578 over RFC 2046), parsed strictly: what a file upload to
/// the emulator's storage route must be.
///
/// Strict means: the boundary comes from the `Content-Type` header (1 to 70 characters), the body
/// opens with a delimiter (a preamble before it is allowed, as RFC 2046 says) and ends with the
/// close delimiter, every part has a `Content-Disposition: form-data` header with a `name`, no
/// two parts share a name, part headers are bounded, and so is the number of parts. Anything else
/// is a ``Failure`` with a message saying what was wrong; nothing here traps on any input.
package struct MultipartForm: Sendable, Equatable {
    /// One part: a form field or a file.
    package struct Part: Sendable, Equatable {
        /// The `name` of its `Content-Disposition`.
        package var name: String
        /// The `filename` of its `Content-Disposition`, for a file part.
        package var filename: String?
        /// Its own `Content-Type` header, if it has one.
        package var contentType: String?
        /// Its content, exactly as sent.
        package var body: [UInt8]

        package init(name: String, filename: String? = nil, contentType: String? = nil, body: [UInt8]) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.body = body
        }

        /// The content read as UTF-8 text (form fields are text).
        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Why a body is not an acceptable form.
    package struct Failure: Error, Sendable, Equatable {
        package var message: String
    }

    /// The parts in the order sent.
    package var parts: [Part]

    /// Most parts one form may hold.
    package static let partLimit = 64
    /// Most bytes of one part's headers.
    package static let headerLimit = 8 * 1024

    /// The boundary named by a `Content-Type` header of `multipart/form-data`.
    package static func boundary(contentType: String?) throws(Failure) -> String {
        guard let contentType else { throw Failure(message: "the request has no Content-Type") }
        let pieces = contentType.split(separator: ";", omittingEmptySubsequences: false)
        guard let type = pieces.first, type.trimmingSpaces.lowercased() == "multipart/form-data" else {
            throw Failure(message: "the Content-Type is not multipart/form-data")
        }
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            guard piece[..<equals].trimmingSpaces.lowercased() == "boundary" else { continue }
            var value = piece[piece.index(after: equals)...].trimmingSpaces
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            guard (1...70).contains(value.utf8.count), value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
                value.utf8.last != UInt8(ascii: " ")
            else {
                throw Failure(message: "the multipart boundary must be 1 to 70 printable ASCII characters")
            }
            return value
        }
        throw Failure(message: "the Content-Type names no boundary")
    }

    /// Parses `body` as a form delimited by `boundary`.
    package init(parsing body: [UInt8], boundary: String) throws(Failure) {
        let dash = UInt8(ascii: "-")
        let crlf: [UInt8] = [13, 10]
        let delimiter = [dash, dash] + Array(boundary.utf8)
        // Every delimiter after the first is preceded by CRLF, which belongs to it.
        let innerDelimiter = crlf + delimiter
        var position: Int
        if Self.matches(body, at: 0, delimiter) {
            position = delimiter.count
        } else if let found = Self.find(innerDelimiter, in: body, from: 0) {
            position = found + innerDelimiter.count
        } else {
            throw Failure(message: "the body holds no multipart boundary")
        }
        var parts: [Part] = []
        var names: Set<String> = []
        while true {
            if Self.matches(body, at: position, [dash, dash]) { break }
            // Transport padding (spaces and tabs) may follow a delimiter before its CRLF.
            while position < body.count, body[position] == 0x20 || body[position] == 0x09 { position += 1 }
            guard Self.matches(body, at: position, crlf) else {
                throw Failure(message: "a multipart boundary is not followed by a line break")
            }
            position += 2
            guard parts.count < Self.partLimit else {
                throw Failure(message: "the form has more than \(Self.partLimit) parts")
            }
            if Self.matches(body, at: position, crlf) {
                throw Failure(message: "a part has no Content-Disposition: form-data with a name")
            }
            guard let headerEnd = Self.find(crlf + crlf, in: body, from: position, within: Self.headerLimit + 4) else {
                throw Failure(message: "a part's headers are unterminated or longer than \(Self.headerLimit) bytes")
            }
            let headerBytes = Array(body[position..<headerEnd])
            let contentStart = headerEnd + 4
            guard let contentEnd = Self.find(innerDelimiter, in: body, from: contentStart) else {
                throw Failure(message: "the form is not closed by its final boundary")
            }
            var part = try Self.part(headers: headerBytes)
            guard names.insert(part.name).inserted else {
                throw Failure(message: "the field \(part.name) appears twice")
            }
            part.body = Array(body[contentStart..<contentEnd])
            parts.append(part)
            position = contentEnd + innerDelimiter.count
        }
        guard !parts.isEmpty else { throw Failure(message: "the form has no parts") }
        self.parts = parts
    }

    /// The part named `name`.
    package subscript(name: String) -> Part? { parts.first { $0.name == name } }

    private static func part(headers: [UInt8]) throws(Failure) -> Part {
        // Invalid UTF-8 becomes U+FFFD: a field name that does not match is refused below anyway.
        let text = String(decoding: headers, as: UTF8.self)
        var name: String?
        var filename: String?
        var contentType: String?
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw Failure(message: "a part's header line has no colon")
            }
            let field = line[..<colon].trimmingSpaces.lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            switch field {
            case "content-disposition":
                let parameters = try dispositionParameters(value)
                name = parameters["name"]
                filename = parameters["filename"]
            case "content-type":
                contentType = value
            default:
                continue
            }
        }
        guard let name, !name.isEmpty else {
            throw Failure(message: "a part has no Content-Disposition: form-data with a name")
        }
        return Part(name: name, filename: filename, contentType: contentType, body: [])
    }

    /// `form-data; name="key"; filename="a b.txt"` → `["name": "key", "filename": "a b.txt"]`.
    private static func dispositionParameters(_ value: String) throws(Failure) -> [String: String] {
        var rest = Substring(value)
        guard let type = rest.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first,
            type.trimmingSpaces.lowercased() == "form-data"
        else {
            throw Failure(message: "a part's Content-Disposition is not form-data")
        }
        rest = rest.dropFirst(type.count)
        var parameters: [String: String] = [:]
        while let first = rest.first {
            if first == ";" || first == " " || first == "\t" {
                rest = rest.dropFirst()
                continue
            }
            guard let equals = rest.firstIndex(of: "=") else {
                throw Failure(message: "a Content-Disposition parameter has no value")
            }
            let key = rest[..<equals].trimmingSpaces.lowercased()
            rest = rest[rest.index(after: equals)...]
            var parsed = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var closed = false
                while let character = rest.popFirst() {
                    if character == "\\", let escaped = rest.popFirst() {
                        parsed.append(escaped)
                    } else if character == "\"" {
                        closed = true
                        break
                    } else {
                        parsed.append(character)
                    }
                }
                guard closed else { throw Failure(message: "a Content-Disposition parameter is not closed") }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parsed = rest[..<end].trimmingSpaces
                rest = rest[end...]
            }
            parameters[key] = parsed
        }
        return parameters
    }

    private static func matches(_ body: [UInt8], at index: Int, _ pattern: [UInt8]) -> Bool {
        guard index >= 0, index + pattern.count <= body.count else { return false }
        for offset in 0..<pattern.count where body[index + offset] != pattern[offset] { return false }
        return true
    }

    /// The first index at or after `start` where `pattern` begins, looking at most `within` bytes.
    private static func find(_ pattern: [UInt8], in body: [UInt8], from start: Int, within: Int = .max) -> Int? {
        guard let first = pattern.first, start >= 0 else { return nil }
        let limit = body.count - pattern.count
        let last = within == .max ? limit : min(limit, start + within - pattern.count)
        guard start <= last else { return nil }
        var index = start
        while index <= last {
            if body[index] == first, matches(body, at: index, pattern) { return index }
            index += 1
        }
        return nil
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
