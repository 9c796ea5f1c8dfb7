// fuzz-auth: feeds arbitrary bytes to the CBOR reader and the token parser. Neither may crash,
// hang or allocate without bound; every bad input must come back as an AuthError.
//
// Replay a corpus: `swift run fuzz-auth FILE-OR-FOLDER...`; fuzz: `Scripts/fuzz.sh auth 60`.

import Auth
import Foundation
import FuzzSupport

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

FuzzDriver.main { bytes in _ = exercise(bytes) }
