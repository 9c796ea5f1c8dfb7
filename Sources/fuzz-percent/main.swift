// fuzz-percent: the emulator's percent, query-string and base64url decoding on arbitrary bytes.
//
// The input (as UTF-8 text, invalid sequences replaced) is taken as an escaped text, a raw query
// string and a raw path. Nothing may crash, and:
//   - a text that decodes must encode and decode back to itself;
//   - where Foundation's `removingPercentEncoding` also decodes a text, both agree;
//   - a query that decodes must encode (names and values escaped) and decode to the same pairs,
//     and the pub/sub reading of the same query (which keeps broken escapes as sent) must give
//     those pairs too;
//   - a path's decoded segments must encode and decode back to the same segments;
//   - base64url: the input's bytes encode and decode to themselves, and a text that decodes must
//     encode and decode to the same bytes.
//
// Replay a corpus: `swift run fuzz-percent FILE-OR-FOLDER...`; fuzz: `Scripts/fuzz.sh percent 60`.

import DataSyncEmulator
import Foundation
import FuzzSupport

func finding(_ what: String, _ input: [UInt8]) -> Never {
    print("\(what) for input \(Array(input.prefix(300)))")
    abort()
}

func exercise(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)

    // Escaped text.
    let decoded = PercentDecoding.decode(Substring(text))
    if let decoded {
        let encoded = PercentDecoding.encode(decoded)
        guard PercentDecoding.decode(Substring(encoded)) == decoded else {
            finding("\(decoded.debugDescription) does not survive encode and decode (\(encoded))", bytes)
        }
        if let foundation = text.removingPercentEncoding, foundation != decoded {
            finding(
                "decoded \(decoded.debugDescription), Foundation decoded \(foundation.debugDescription)", bytes)
        }
    }

    // Query string.
    if let items = PercentDecoding.queryItems(text) {
        let encoded = items.map { PercentDecoding.encode($0.name) + "=" + PercentDecoding.encode($0.value) }
            .joined(separator: "&")
        guard let again = PercentDecoding.queryItems(encoded),
            again.map(\.name) == items.map(\.name), again.map(\.value) == items.map(\.value)
        else { finding("query \(text.debugDescription) does not survive encode and decode (\(encoded))", bytes) }
        let pubsub = PubSubWire.query(text).items
        guard pubsub.map(\.0) == items.map(\.name), pubsub.map(\.1) == items.map(\.value) else {
            finding("the pub/sub query reading disagrees on \(text.debugDescription)", bytes)
        }
    } else {
        _ = PubSubWire.query(text)
    }

    // Path: segments are split before decoding, so an escaped `/` stays inside its segment.
    if let segments = PubSubWire.segments(text) {
        let encoded = segments.isEmpty ? "" : "/" + segments.map(PercentDecoding.encode).joined(separator: "/")
        guard PubSubWire.segments(encoded) == segments else {
            finding("path \(text.debugDescription) does not survive encode and decode (\(encoded))", bytes)
        }
    }
    _ = PubSubWire.names(Substring(text))

    // base64url.
    guard Base64URL.decode(Base64URL.encode(bytes)) == bytes else { finding("base64url round trip", bytes) }
    if let raw = Base64URL.decode(text), Base64URL.decode(Base64URL.encode(raw)) != raw {
        finding("base64url text \(text.debugDescription) does not survive encode and decode", bytes)
    }
}

FuzzDriver.main(exercise)
