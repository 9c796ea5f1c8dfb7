// fuzz-auth: feeds arbitrary bytes to the CBOR reader and the token parser. Neither may crash,
// hang or allocate without bound; every bad input must come back as an AuthError.
//
// Replay:  swift run fuzz-auth <corpus files…>
// Fuzz:    swift build -c release --scratch-path .build/fuzz --product fuzz-auth \
//              -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
//          .build/fuzz/release/fuzz-auth -max_total_time=60 [corpus-dir]
//
// SwiftPM links an executable target's own `main` (it points `main` at the module's entry
// function), so libFuzzer's `main` never runs. In FUZZING builds the top-level code below
// therefore hands control to libFuzzer through `LLVMFuzzerRunDriver`, which takes the usual
// libFuzzer command line.

import Auth
import Foundation

/// Runs one input through every entry point: raw CBOR, the token from CBOR bytes, and the token
/// from text (the bytes read as text, so base64 and percent-decoding are exercised too).
func exercise(_ bytes: [UInt8]) -> Int {
    var outcomes = 0
    if let value = try? CBORReader.decode(bytes) {
        outcomes += value.typeName.isEmpty ? 0 : 1
    }
    if let token = try? AccessToken(cbor: bytes) {
        outcomes += token.allows(.read, on: "fuzz", in: .channels) ? 1 : 0
        outcomes += token.description.isEmpty ? 0 : 1
        // Any accepted token must read back the same from its text form (standard base64 here).
        guard (try? AccessToken(parsing: Data(bytes).base64EncodedString())) == token else {
            print("token did not read back equal from its base64 text")
            abort()
        }
    }
    if let token = try? AccessToken(parsing: String(decoding: bytes, as: UTF8.self)) {
        outcomes += token.isExpired(at: Date()) ? 1 : 0
        outcomes += token.projections.projection(for: "fuzz", type: .entities) == nil ? 0 : 1
    }
    return outcomes
}

#if FUZZING
    /// libFuzzer's entry point: one input per call.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        guard let data else { return 0 }
        _ = exercise(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    /// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links), called with C arguments.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    var argumentCount = CommandLine.argc
    var argumentVector = CommandLine.unsafeArgv
    exit(runFuzzerDriver(&argumentCount, &argumentVector) { data, size in fuzzOne(data, size) })
#else
    var replayed = 0
    for path in CommandLine.arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else {
            print("cannot read \(path)")
            continue
        }
        _ = exercise(Array(data))
        replayed += 1
    }
    print("replayed \(replayed) inputs without a crash")
#endif
