// fuzz-multipart: the emulator's `multipart/form-data` parser (file uploads) on arbitrary bytes.
//
// The input is parsed as a form body with the boundary `fuzz-boundary`, and its text is read as a
// `Content-Type` header. Nothing may crash, and:
//   - a body that parses has at least one part, every part has a name, and no name twice;
//   - a parsed form written out again (canonical headers, the same bodies) parses back to the
//     same parts, so nothing the parser accepts depends on where its delimiters happened to be;
//   - a boundary read from a header is 1 to 70 printable characters.
//
// Replay a corpus: `swift run fuzz-multipart FILE-OR-FOLDER...`; fuzz: `Scripts/fuzz.sh multipart 60`.

import DataSyncEmulator
import Foundation
import FuzzSupport

let boundary = "fuzz-boundary"

func finding(_ what: String, _ input: [UInt8]) -> Never {
    print("\(what) for input \(Array(input.prefix(300)))")
    abort()
}

func quoted(_ text: String) -> String {
    var output = ""
    for character in text {
        if character == "\"" || character == "\\" { output.append("\\") }
        output.append(character)
    }
    return output
}

func written(_ form: MultipartForm) -> [UInt8] {
    var body: [UInt8] = []
    for part in form.parts {
        var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(quoted(part.name))\""
        if let filename = part.filename { head += "; filename=\"\(quoted(filename))\"" }
        head += "\r\n"
        if let type = part.contentType { head += "Content-Type: \(type)\r\n" }
        body += Array((head + "\r\n").utf8) + part.body + Array("\r\n".utf8)
    }
    return body + Array("--\(boundary)--\r\n".utf8)
}

func exercise(_ bytes: [UInt8]) {
    if let found = try? MultipartForm.boundary(contentType: String(decoding: bytes, as: UTF8.self)) {
        guard (1...70).contains(found.utf8.count), found.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            finding("boundary \(found.debugDescription) is out of bounds", bytes)
        }
    }
    guard let form = try? MultipartForm(parsing: bytes, boundary: boundary) else { return }
    guard !form.parts.isEmpty, form.parts.allSatisfy({ !$0.name.isEmpty }),
        Set(form.parts.map(\.name)).count == form.parts.count
    else { finding("an accepted form has no part, a nameless part or a name twice", bytes) }
    let again: MultipartForm
    do {
        again = try MultipartForm(parsing: written(form), boundary: boundary)
    } catch {
        finding("a parsed form written out again is refused: \(error.message)", bytes)
    }
    guard again == form else { finding("a parsed form written out again parses differently", bytes) }
}

FuzzDriver.main(exercise)
