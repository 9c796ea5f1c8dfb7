// Fuzz harness for the SDK's response decoders (see Documentation/Fuzzing.md): DataSync object
// and list envelopes, `PubNubError` from a status and a body, `ISO8601Timestamp` and `Retry-After`.
//
// A normal build is a replay tool (`swift run fuzz-decoders FILE...`); `Scripts/fuzz.sh decoders 60`
// fuzzes. The first byte picks the decoder, the rest is its input.
import DataSyncModels
import Foundation
import FuzzSupport
import JSONCore
import PubNubCore
import Transport

/// Stops the run so the fuzzer keeps the input: an invariant below did not hold.
func finding(_ what: String, _ input: [UInt8]) -> Never {
    print("\(what) for input \(input.prefix(200))")
    abort()
}

/// Every DataSync model the client decodes from `{"data": …}` answers; where the byte reader
/// takes a body, the tree decoder must give the same value (issue 31 §2: the two paths may not drift).
func decodeEnvelopes(_ body: [UInt8]) {
    sameObject(PubNubDataSyncUser.self, body)
    sameObject(PubNubDataSyncChannel.self, body)
    sameObject(PubNubDataSyncEntity.self, body)
    sameList(PubNubDataSyncUser.self, body)
    sameList(PubNubDataSyncMembership.self, body)
    sameList(PubNubDataSyncRelationship.self, body)
}

/// The wire JSON of a decoded model, which tells apart what `==` does not (number kinds,
/// canonically equivalent strings).
func wire<T: DataSyncWireConvertible>(_ value: T) -> [UInt8]? {
    try? JSONValue.object(value.wireFields).jsonBytes(sortedKeys: true)
}

func sameObject<T: DataSyncWireConvertible & Equatable>(_ type: T.Type, _ body: [UInt8]) {
    let tree = try? DataSyncEnvelope.objectThroughTree(type, from: body)
    guard let direct = DataSyncEnvelope.objectDirectly(type, from: body) else { return }
    guard let tree, tree == direct, wire(tree) == wire(direct) else {
        finding("the byte reader gave \(direct), the tree \(String(describing: tree))", body)
    }
}

func sameList<T: DataSyncWireConvertible & Equatable>(_ type: T.Type, _ body: [UInt8]) {
    let tree = try? DataSyncEnvelope.listThroughTree(type, from: body)
    guard let direct = DataSyncEnvelope.listDirectly(type, from: body) else { return }
    guard let tree, tree.0 == direct.0, tree.1 == direct.1, tree.0.map(wire) == direct.0.map(wire) else {
        finding("the byte reader gave \(direct), the tree \(String(describing: tree))", body)
    }
}

/// An error answer of any status: the error must describe itself and keep its status.
func decodeError(_ input: [UInt8]) {
    guard input.count >= 2 else { return }
    let status = 100 + (Int(input[0]) << 8 | Int(input[1])) % 500
    let error = PubNubError(statusCode: status, body: Array(input.dropFirst(2)))
    _ = error.description
    if error.statusCode != status { finding("status \(status) became \(String(describing: error.statusCode))", input) }
}

/// A timestamp that parses must format and parse back to the same microsecond (years 1...9999,
/// which the four-digit format can write).
func decodeTimestamp(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    guard let date = ISO8601Timestamp.date(from: text) else { return }
    let seconds = date.timeIntervalSince1970
    guard seconds.isFinite, seconds > -62_135_596_800, seconds < 253_402_300_799 else { return }
    let written = ISO8601Timestamp.string(from: date, fractionDigits: 6)
    guard let reread = ISO8601Timestamp.date(from: written) else { finding("\(written) does not parse back", input) }
    if abs(reread.timeIntervalSince1970 - seconds) > 0.000_001 * 2 {
        finding("\(text) → \(written) → \(reread.timeIntervalSince1970) moved", input)
    }
}

/// A `Retry-After` value is a delay of zero or more, or nothing.
func decodeRetryAfter(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    if let delay = RetryMiddleware.retryAfter(text, now: Date(timeIntervalSince1970: 1_800_000_000)), delay < .zero {
        finding("Retry-After \(text.debugDescription) gave a negative delay \(delay)", input)
    }
}

func exercise(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let input = Array(bytes.dropFirst())
    switch selector % 4 {
    case 0: decodeEnvelopes(input)
    case 1: decodeError(input)
    case 2: decodeTimestamp(input)
    default: decodeRetryAfter(input)
    }
}

FuzzDriver.main { bytes in exercise(bytes) }
