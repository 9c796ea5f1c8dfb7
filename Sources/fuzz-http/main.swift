// fuzz-http: the emulator's HTTP/1.1 request parser (`RequestParser`) on arbitrary bytes.
//
// The first four bytes seed the choice of split points; the rest is what a client sends on one
// connection. The bytes are parsed twice: handed over whole, and in pieces the seed chooses (the
// consumed prefix dropped now and then, as a connection does). Both must give the same requests
// at the same offsets and end the same way. Every accepted request must be exactly its own bytes:
// those bytes alone parse to the same request, and one byte fewer is never a complete request; a
// request with a Content-Length never consumes a byte past its head plus that length.
//
// Replay a corpus: `swift run fuzz-http FILE-OR-FOLDER...`; fuzz: `Scripts/fuzz.sh http 60`.

import EmulatorHTTP
import Foundation
import FuzzSupport

/// Small limits, so that the fuzzer reaches every "too large" answer with short inputs.
let limits = RequestParser.Limits(requestLine: 200, headers: 600, body: 2000)

/// What one request parsed to, in a comparable form.
struct Parsed: Equatable {
    var method: String
    var target: String
    var minorVersion: Int
    var headers: [String]
    var keepAlive: Bool
    var body: RequestBodyKind
    var expectsContinue: Bool
    var bodyBytes: [UInt8]
    /// Offsets (in the whole input) of the request's first byte after any leading blank lines
    /// the parser skipped, and one past its last byte.
    var start: Int
    var end: Int

    init(_ head: RequestHead, body: [UInt8], start: Int, end: Int) {
        method = head.method
        target = head.target
        minorVersion = head.minorVersion
        headers = head.headers.map { "\($0.name)\u{0}\($0.value)" }
        keepAlive = head.keepAlive
        self.body = head.body
        expectsContinue = head.expectsContinue
        bodyBytes = body
        self.start = start
        self.end = end
    }

    func sameRequest(as other: Parsed) -> Bool {
        method == other.method && target == other.target && minorVersion == other.minorVersion
            && headers == other.headers && keepAlive == other.keepAlive && body == other.body
            && expectsContinue == other.expectsContinue && bodyBytes == other.bodyBytes
    }
}

/// How parsing a connection's bytes ended.
enum Ending: Equatable {
    /// Waiting for more bytes; this many bytes (from the input's start) were consumed.
    case needMore(consumed: Int)
    case failed(status: Int, message: String)
    /// A request ended with `Connection: close` (or HTTP/1.0 without keep-alive): the server
    /// stops reading there.
    case closed(consumed: Int)
}

func finding(_ what: String, _ input: [UInt8]) -> Never {
    print("\(what) for input \(Array(input.prefix(300)))")
    abort()
}

/// A small deterministic generator (xorshift32) for the split points.
struct Splitter {
    var state: UInt32
    mutating func next() -> UInt32 {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return state
    }
}

/// Parses `data` arriving in the pieces `pieceLengths` yields, the way a connection does.
/// `dropConsumed` says, after each piece, whether to drop the consumed prefix of the buffer.
func parseConnection(
    _ data: [UInt8], nextPiece: () -> Int, dropConsumed: () -> Bool
) -> ([Parsed], Ending) {
    var parser = RequestParser(limits: limits)
    var buffer: [UInt8] = []
    var readIndex = 0
    /// Bytes of the input dropped from the front of `buffer`.
    var dropped = 0
    var delivered = 0
    var requests: [Parsed] = []
    var requestStart = 0
    var headSeen = false
    /// Where the current request must end at the latest: its head's end plus its declared length.
    var lengthLimit: Int?
    while true {
        let piece = min(max(1, nextPiece()), data.count - delivered)
        buffer.append(contentsOf: data[delivered..<(delivered + piece)])
        delivered += piece
        parsing: while true {
            let before = readIndex
            let progress: RequestParser.Progress
            do {
                progress = try parser.parse(buffer, readIndex: &readIndex)
            } catch {
                return (requests, .failed(status: error.status, message: error.message))
            }
            if readIndex < before || readIndex > buffer.count {
                finding("readIndex moved from \(before) to \(readIndex) in a buffer of \(buffer.count)", data)
            }
            if let lengthLimit, dropped + readIndex > lengthLimit {
                finding("consumed \(dropped + readIndex) bytes, past the declared end \(lengthLimit)", data)
            }
            switch progress {
            case .needMore:
                break parsing
            case .headReceived(let head):
                if headSeen { finding("a second head for one request", data) }
                headSeen = true
                if case .length(let length) = head.body { lengthLimit = dropped + readIndex + length }
            case .complete(let head, let body):
                let end = dropped + readIndex
                if let lengthLimit, end != lengthLimit {
                    finding("a request with a declared length ended at \(end), not \(lengthLimit)", data)
                }
                lengthLimit = nil
                requests.append(Parsed(head, body: body, start: requestStart, end: end))
                requestStart = end
                headSeen = false
                if !head.keepAlive { return (requests, .closed(consumed: end)) }
                parser.reset()
                if !parser.isAtRequestStart { finding("not at a request's start after reset", data) }
            }
        }
        if dropConsumed() && readIndex > 0 {
            buffer.removeFirst(readIndex)
            dropped += readIndex
            readIndex = 0
        }
        if delivered == data.count { return (requests, .needMore(consumed: dropped + readIndex)) }
    }
}

func exercise(_ bytes: [UInt8]) {
    guard bytes.count >= 4 else { return }
    let seed = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let data = Array(bytes.dropFirst(4))
    guard !data.isEmpty else { return }

    let (whole, wholeEnding) = parseConnection(data, nextPiece: { data.count }, dropConsumed: { false })
    var splitter = Splitter(state: seed | 1)
    // Pieces of 1 to 16 bytes mostly, now and then up to 256.
    let (split, splitEnding) = parseConnection(
        data,
        nextPiece: {
            let value = splitter.next()
            return value & 0x100 != 0 ? Int(value & 0xFF) + 1 : Int(value & 0xF) + 1
        },
        dropConsumed: { splitter.next() & 3 == 0 })
    if whole != split { finding("split parse gave \(split.count) requests, whole gave \(whole.count)", bytes) }
    if wholeEnding != splitEnding { finding("split parse ended \(splitEnding), whole \(wholeEnding)", bytes) }

    for request in whole {
        if request.start >= request.end { finding("an empty request", bytes) }
        switch request.body {
        case .none:
            if !request.bodyBytes.isEmpty { finding("a body without framing", bytes) }
        case .length(let length):
            if request.bodyBytes.count != length { finding("body of \(request.bodyBytes.count), not \(length)", bytes) }
        case .chunked:
            if request.bodyBytes.count > limits.body { finding("chunked body over the limit", bytes) }
        }
        if request.bodyBytes.count > limits.body { finding("body over the limit", bytes) }
        // Exactly its own bytes: alone they are the same request, one byte fewer is not a request.
        let own = Array(data[request.start..<request.end])
        let (alone, aloneEnding) = parseConnection(own, nextPiece: { own.count }, dropConsumed: { false })
        guard alone.count == 1, alone[0].sameRequest(as: request) else {
            finding("request at \(request.start)..<\(request.end) parses differently alone", bytes)
        }
        switch aloneEnding {
        case .needMore(let consumed), .closed(let consumed):
            if consumed != own.count { finding("request alone consumed \(consumed) of \(own.count)", bytes) }
        case .failed:
            finding("request alone failed", bytes)
        }
        let short = Array(own.dropLast())
        if !short.isEmpty {
            let (shortRequests, _) = parseConnection(short, nextPiece: { short.count }, dropConsumed: { false })
            if !shortRequests.isEmpty { finding("one byte fewer still completes a request", bytes) }
        }
    }
}

FuzzDriver.main(exercise)
