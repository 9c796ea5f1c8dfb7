// Fuzz harness for JSONPatch: pointer parsing, and decoding + applying patches.
//
// The first byte picks the mode: even = parse the rest as a JSON Pointer; odd = parse the rest as
// the JSON array `[document, patch]`, decode the patch and apply it. Invariants that must hold for
// every input are checked; a broken one stops the process so the fuzzer reports the input.
//
// Normal build: a replay tool, `fuzz-jsonpatch <file or directory>...`.
// With `-DFUZZING` and `-sanitize=fuzzer`: a libFuzzer binary (see Documentation/JSONPatch.md).

import Foundation
import JSONCore
import JSONPatch

func invariant(_ condition: Bool, _ message: @autoclosure () -> String) {
    // Crashing is the point here: it is how the fuzzer learns that an input broke an invariant.
    if !condition { fatalError("invariant broken: \(message())") }
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

#if FUZZING
    /// libFuzzer's entry point: runs one input through the harness.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        fuzzInput(ArraySlice(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    // The Swift executable has its own `main`, so libFuzzer's is not linked in: start libFuzzer's
    // driver ourselves (it parses the usual libFuzzer flags from the command line).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    var argumentCount = CommandLine.argc
    var argumentVector = CommandLine.unsafeArgv
    exit(runFuzzerDriver(&argumentCount, &argumentVector, fuzzOne))
#else
    var files: [URL] = []
    for argument in CommandLine.arguments.dropFirst() {
        let url = URL(fileURLWithPath: argument)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            print("no such file: \(argument)")
            continue
        }
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            files += names.sorted().map { url.appendingPathComponent($0) }
        } else {
            files.append(url)
        }
    }
    var replayed = 0
    for file in files {
        guard let data = try? Data(contentsOf: file) else { continue }
        fuzzInput(ArraySlice(data))
        replayed += 1
    }
    print("replayed \(replayed) inputs with no invariant broken")
#endif
