// Fuzz harness for JSONPatch: pointer parsing, and decoding + applying patches.
//
// The first byte picks the mode: even = parse the rest as a JSON Pointer; odd = parse the rest as
// the JSON array `[document, patch]`, decode the patch and apply it. Invariants that must hold for
// every input are checked; a broken one stops the process so the fuzzer reports the input.
//
//
// Replay a corpus: `swift run fuzz-jsonpatch FILE-OR-FOLDER...`; fuzz: `Scripts/fuzz.sh jsonpatch 60`.

import Foundation
import FuzzSupport
import JSONCore
import JSONPatch

func invariant(_ condition: Bool, _ message: @autoclosure () -> String) {
    // Crashing is the point here: it is how the fuzzer learns that an input broke an invariant.
    guard !condition else { return }
    print("invariant broken: \(message())")
    abort()
}

func fuzzPointer(_ bytes: ArraySlice<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let pointer = try? JSONPointer(text) else { return }
    invariant(pointer.description == text, "pointer text round trip of \(text)")
    invariant(JSONPointer(tokens: pointer.tokens) == pointer, "pointer token round trip")
    for token in pointer.tokens {
        if let index = JSONPointer.arrayIndex(token) {
            invariant(String(index) == token, "array index \(token) is canonical")
        }
    }
}

func fuzzPatch(_ bytes: ArraySlice<UInt8>) {
    guard let input = try? JSONValue(parsing: bytes, options: JSONParsingOptions(maximumDepth: 64)),
        case .array(let parts) = input, parts.count == 2,
        let operations = try? parts[1].decode([PatchOperation].self)
    else { return }
    let original = parts[0]

    if let wire = try? JSONValue(from: operations) {
        invariant((try? wire.decode([PatchOperation].self)) == operations, "wire round trip")
    }

    var document = original
    do {
        try document.apply(operations)
        invariant((try? Patch.apply(operations, to: original)) == document, "apply and applying agree")
        let diff = Patch.diff(from: original, to: document)
        invariant((try? Patch.apply(diff, to: original)) == document, "diff reproduces the result")
    } catch {
        invariant(document == original, "a failed patch left the document unchanged")
        invariant(error.operationIndex.map { operations.indices.contains($0) } == true, "error names an operation")
    }
}

func fuzzInput(_ bytes: ArraySlice<UInt8>) {
    guard let mode = bytes.first else { return }
    if mode % 2 == 0 {
        fuzzPointer(bytes.dropFirst())
    } else {
        fuzzPatch(bytes.dropFirst())
    }
}

FuzzDriver.main { bytes in fuzzInput(ArraySlice(bytes)) }
