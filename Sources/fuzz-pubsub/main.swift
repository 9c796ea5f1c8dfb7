// fuzz-pubsub: arbitrary paths, queries and clock moves through the emulator's pub/sub and
// presence routes (publish, signal, subscribe, channel groups, heartbeat, leave, state, here-now,
// where-now, time), in process, on a manual clock.
//
// The input (UTF-8, invalid sequences replaced) is read line by line; one emulator serves the
// whole process, so state carries from one input to the next as it would on a server:
//   `@<seconds>`   set the clock to that many seconds since 1970 (any size: the year 3000, 1e300)
//   `+<seconds>`   move the clock by that many seconds (negative moves it back)
//   `<d><rest>`    a GET whose target is a route prefix picked by the digit `d` followed by `rest`
//                  (0 time, 1 publish, 2 signal, 3 subscribe, 4 channel groups, 5 presence,
//                  6 presence channel, 7 POST publish with the text after a tab as body, 8 `rest` alone)
// Nothing may crash or hang, and every answer must be an HTTP status from 200 to 599 whose body,
// on these routes, is JSON (the SDKs parse every answer, errors included).
//
// Replay a corpus: `swift run fuzz-pubsub FILE-OR-FOLDER...`; fuzz: `Scripts/fuzz.sh pubsub 60`.

import DataSyncEmulator
import EmulatorHTTP
import Foundation
import FuzzSupport
import JSONCore

func finding(_ what: String, _ input: [UInt8]) -> Never {
    print("\(what) for input \(Array(input.prefix(300)))")
    abort()
}

/// One emulator for the process: a manual clock, long-polls that answer at once (nothing else
/// would move the clock), and small buffers so a long run keeps its memory.
let clock = EmulatorClock.manual(startingAt: Date(timeIntervalSince1970: 1_788_766_495))
let emulator: Emulator = {
    let pubSub = PubSubConfiguration(
        catchUpBufferSize: 500, longPollTimeout: .zero, maximumChannelGroups: 50, maximumChannelsPerGroup: 50,
        maximumPresencesPerKeyset: 2_000)
    do {
        return try Emulator(configuration: EmulatorConfiguration(clock: clock, pubSub: pubSub))
    } catch {
        print("cannot start the emulator: \(error)")
        exit(2)
    }
}()

let prefixes = [
    "/time/0", "/publish/demo/demo/0/", "/signal/demo/demo/0/", "/v2/subscribe/demo/",
    "/v1/channel-registration/sub-key/demo/channel-group", "/v2/presence/sub-key/demo",
    "/v2/presence/sub-key/demo/channel/", "/publish/demo/demo/0/",
]

/// Runs `request` on the emulator and waits for its answer (the harness's body is synchronous).
func answer(_ request: ServerRequest) -> ServerResponse {
    final class Box: @unchecked Sendable {
        // Written once by the task before it signals, read after the wait: the semaphore orders them.
        var response: ServerResponse?
    }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.response = await emulator.respond(to: request)
        done.signal()
    }
    done.wait()
    return box.response ?? ServerResponse(status: 0)
}

func exercise(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    for line in text.split(separator: "\n", omittingEmptySubsequences: true).prefix(64) {
        guard let first = line.first else { continue }
        if first == "@" || first == "+" {
            let seconds = Double(line.dropFirst()) ?? 0
            if first == "@" {
                clock.set(to: EmulatorClock.Instant(Date(timeIntervalSince1970: seconds)))
            } else if seconds.isFinite {
                // Whole nanoseconds, saturating as the admin route's step does.
                let nanos = max(-9.2e18, min(9.2e18, seconds * 1e9))
                clock.advance(by: .nanoseconds(Int64(nanos)))
            }
            continue
        }
        guard let digit = first.wholeNumberValue, digit <= 8 else { continue }
        var rest = String(line.dropFirst())
        var method = "GET"
        var body: [UInt8] = []
        if digit == 7 {
            method = "POST"
            let parts = rest.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            rest = String(parts[0])
            body = parts.count > 1 ? Array(parts[1].utf8) : []
        }
        var target = digit == 8 ? rest : prefixes[digit] + rest
        if !target.hasPrefix("/") { target = "/" + target }
        // The admin routes can queue delays that wait on the clock; they are not this harness's.
        if target.hasPrefix("/_emulator") { continue }
        let response = answer(ServerRequest(method: method, target: target, body: body))
        guard (200...599).contains(response.status) else {
            finding("status \(response.status) for \(method) \(target.prefix(200))", bytes)
        }
        // `/time/0` is the one route matched whole; every other prefix is claimed as it stands.
        let isPubSubRoute = (1...7).contains(digit) || (digit == 0 && (rest.isEmpty || rest.hasPrefix("?")))
        if isPubSubRoute, (try? JSONValue(parsing: response.body)) == nil {
            finding(
                "a body that is not JSON (\(String(decoding: response.body.prefix(200), as: UTF8.self))) for \(method) \(target.prefix(200))",
                bytes)
        }
    }
}

FuzzDriver.main(exercise)
