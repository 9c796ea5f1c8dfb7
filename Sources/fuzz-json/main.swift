// Fuzz harness for the JSON parser and writer (see Documentation/Fuzzing.md).
//
// A normal build is a replay tool: `swift run fuzz-json FILE...` runs each file once.
// Built with `-Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer,address` it hands control to libFuzzer.
import Foundation
import JSONCore

/// Parses `bytes`; when that succeeds, writes the value and checks that it reads back equal.
func exercise(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let value = try? JSONValue(parsing: bytes) else { return }
    guard let written = try? value.jsonBytes() else { return }
    guard let reread = try? JSONValue(parsing: written), reread == value else {
        // A value that does not read back equal is a bug: stop so the fuzzer keeps the input.
        print("round trip failed for \(String(decoding: bytes, as: UTF8.self))")
        abort()
    }
}

#if FUZZING
    // libFuzzer's entry point for programs that keep their own `main` (SwiftPM renames an executable's
    // `main`, so the usual LLVMFuzzerTestOneInput-only harness would never be called).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(
        runFuzzerDriver(&argc, &argv) { data, size in
            exercise(UnsafeBufferPointer(start: data, count: size))
            return 0
        })
#else
    for path in CommandLine.arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else {
            print("cannot read \(path)")
            continue
        }
        Array(data).withUnsafeBufferPointer { exercise($0) }
        print("ok \(path)")
    }
#endif
