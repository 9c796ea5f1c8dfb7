// Fuzz harness for the JSON parser and writer (see Documentation/Fuzzing.md).
//
// A normal build is a replay tool (`swift run fuzz-json FILE...`); `Scripts/fuzz.sh json 60` fuzzes.
import Foundation
import FuzzSupport
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

FuzzDriver.main { bytes in bytes.withUnsafeBufferPointer { exercise($0) } }
