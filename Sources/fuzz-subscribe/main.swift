// Fuzz harness for the subscribe-answer decoder (see Documentation/Fuzzing.md).
//
// A normal build is a replay tool (`swift run fuzz-subscribe FILE...`); `Scripts/fuzz.sh subscribe 60`
// fuzzes.
import Foundation
import FuzzSupport
import Realtime

/// Decodes `bytes` as a subscribe answer and turns every envelope into an event. Any crash is a
/// finding; so is an event whose timetoken is not its envelope's, or an answer the byte reader and
/// the tree decoder read differently.
func exercise(_ bytes: [UInt8]) {
    let outcome = SubscribeResponseDecoder.decode(bytes)
    guard outcome == SubscribeResponseDecoder.decodeThroughTree(bytes) else {
        print("the byte reader and the tree decoder disagree on \(String(decoding: bytes, as: UTF8.self))")
        abort()
    }
    switch outcome {
    case .decoded(let response):
        for envelope in response.envelopes {
            let event = PubNubEvent(envelope: envelope)
            guard event.timetoken == envelope.published.timetoken,
                event.channel.hasPrefix(ChannelName(envelope.channel).base.rawValue)
            else {
                print("event \(event) does not match its envelope \(envelope)")
                abort()
            }
        }
    case .malformed:
        break
    }
}

FuzzDriver.main { bytes in exercise(bytes) }
