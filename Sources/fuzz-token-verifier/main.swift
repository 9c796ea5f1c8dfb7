// fuzz-token-verifier: feeds arbitrary bytes to the emulator's Access Manager token verifier and
// request-signature check. Neither may crash, hang or allocate without bound; every bad input
// must come back as a refusal. A token minted from the input must verify to what was minted, and
// must be refused once one of its bytes is changed.
//
// Replay a corpus: `swift run fuzz-token-verifier FILE-OR-FOLDER...`;
// fuzz: `Scripts/fuzz.sh token-verifier 60`.

import DataSyncEmulator
import Foundation
import FuzzSupport
import JSONCore

let secret = "fuzz-secret"

func exercise(_ bytes: [UInt8]) {
    // 1. The bytes as a decoded token, and as token text.
    _ = AccessTokenCodec.verify(bytes: bytes, secretKey: secret)
    let text = String(decoding: bytes, as: UTF8.self)
    _ = AccessTokenCodec.verify(text, secretKey: secret)

    // 2. The bytes as request parts: a signature check never traps, whatever it is given.
    let parts = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
    let query = (parts.count > 1 ? parts[1] : "").split(separator: "&").map { item in
        let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (name: String(pair[0]), value: pair.count > 1 ? String(pair[1]) : "")
    }
    _ = RequestSignature.verify(
        method: "POST", path: parts.first ?? "/", query: query, body: Array((parts.count > 2 ? parts[2] : "").utf8),
        publishKey: "pub", subscribeKey: "sub", secretKey: secret, now: 1_700_000_000)

    // 3. Round trip: a token minted from the input verifies to exactly its content, and any
    //    one-byte edit is refused.
    let name = String(text.prefix(64))
    let content = AccessTokenContent(
        issuedAt: UInt64(bytes.count) * 1_000_003, ttlMinutes: UInt64(bytes.first ?? 1) + 1,
        resources: ["chan": [name: UInt64(bytes.last ?? 0)]], patterns: [:], meta: ["k": .string(name)],
        authorizedUUID: bytes.count % 2 == 0 ? name : nil)
    let minted = AccessTokenCodec.mint(content, secretKey: secret)
    guard case .success(var read) = AccessTokenCodec.verify(minted, secretKey: secret) else {
        print("a minted token was refused")
        abort()
    }
    read.signature = []
    guard read == content else {
        print("a minted token read back different")
        abort()
    }
    guard
        var raw = Data(
            base64Encoded: minted.replacingOccurrences(of: "-", with: "+")
                .replacingOccurrences(of: "_", with: "/")
        ).map({ [UInt8]($0) }), !raw.isEmpty
    else {
        print("a minted token is not base64")
        abort()
    }
    let index = (Int(bytes.first ?? 0) * 31 + bytes.count) % raw.count
    raw[index] ^= UInt8(1 << ((bytes.last ?? 0) % 8))
    if case .success = AccessTokenCodec.verify(bytes: raw, secretKey: secret) {
        print("a token edited at byte \(index) was accepted")
        abort()
    }
}

FuzzDriver.main { bytes in exercise(bytes) }
