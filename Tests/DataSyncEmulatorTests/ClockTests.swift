import EmulatorHTTP
import Foundation
import PubNubBase
import Testing

@testable import DataSyncEmulator

/// Records whether (and when, on the clock) a sleep ended.
private final class WakeRecord: Sendable {
    private let woke = Locked<EmulatorClock.Instant?>(nil)
    func record(_ instant: EmulatorClock.Instant) { woke.withLock { $0 = instant } }
    var instant: EmulatorClock.Instant? { woke.withLock { $0 } }
}

@Suite("Emulator clock: timetokens and sleepers", .timeLimit(.minutes(1)))
struct ClockTests {
    /// 100 ns ticks of `startInstant`.
    static let startTick = UInt64(EmulatorClock.Instant(startInstant).nanosecondsSince1970 / 100)

    @Test("timetokens drawn on a stopped clock are 17 digits, strictly increasing and unique")
    func timetokensUnderAFrozenClock() {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        let tokens = (0..<10_000).map { _ in clock.timetoken(for: "demo") }
        #expect(tokens.first == Self.startTick)
        #expect(zip(tokens, tokens.dropFirst()).allSatisfy { $0 < $1 })
        #expect(Set(tokens).count == tokens.count)
        #expect(tokens.allSatisfy { String($0).count == 17 })
        #expect(tokens.last == Self.startTick + 9_999)
    }

    @Test("each keyset has its own timetoken sequence")
    func timetokensPerKeyset() {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        var a: [UInt64] = []
        var b: [UInt64] = []
        for index in 0..<1_000 {
            a.append(clock.timetoken(for: "sub-a"))
            if index.isMultiple(of: 2) { b.append(clock.timetoken(for: "sub-b")) }
        }
        #expect(a == Array(Self.startTick..<Self.startTick + 1_000))
        #expect(b == Array(Self.startTick..<Self.startTick + 500))
    }

    @Test("timetokens drawn from many tasks at once never repeat within a keyset")
    func timetokensUnderConcurrency() async {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        let tokens = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<1_000).map { _ in clock.timetoken(for: "demo") } }
            }
            var all: [UInt64] = []
            for await batch in group {
                #expect(zip(batch, batch.dropFirst()).allSatisfy { $0 < $1 })
                all += batch
            }
            return all
        }
        #expect(Set(tokens).count == 8_000)
        #expect(Set(tokens) == Set(Self.startTick..<Self.startTick + 8_000))
    }

    @Test("timetokens follow the clock when it moves on, and stay increasing when it moves back")
    func timetokensFollowTime() {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        _ = clock.timetoken(for: "demo")
        clock.advance(by: .seconds(1))
        #expect(clock.timetoken(for: "demo") == Self.startTick + 10_000_000)
        clock.set(to: EmulatorClock.Instant(startInstant))
        #expect(clock.timetoken(for: "demo") == Self.startTick + 10_000_001)
        #expect(clock.timetoken(for: "other") == Self.startTick)
    }

    @Test("a system clock's timetokens are 17 digits near the real time")
    func systemTimetokens() {
        let clock = EmulatorClock.system()
        let token = clock.timetoken(for: "demo")
        #expect(String(token).count == 17)
        let real = UInt64(Date().timeIntervalSince1970 * 10_000_000)
        #expect(token > real - 600_000_000 && token < real + 600_000_000)
        #expect(clock.timetoken(for: "demo") > token)
    }

    @Test("a sleeper on the manual clock wakes when time reaches its deadline, not before")
    func manualSleeperWakesAtItsDeadline() async throws {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        let deadline = clock.now.advanced(by: .seconds(10))
        let record = WakeRecord()
        let sleeper = Task {
            try await clock.sleep(until: deadline)
            record.record(clock.now)
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(10) - .nanoseconds(1))
        // Waking takes the sleeper off the clock synchronously inside advance; it is still there.
        #expect(clock.sleeperCount == 1)
        #expect(record.instant == nil)
        clock.advance(by: .nanoseconds(1))
        #expect(clock.sleeperCount == 0)
        try await sleeper.value
        #expect(record.instant == deadline)
    }

    @Test("sleep(for:) counts from now; moving past several deadlines wakes all of them")
    func sleepForAndManyDeadlines() async throws {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        let sleepers = (1...3).map { seconds in
            Task { try await clock.sleep(for: .seconds(seconds)) }
        }
        await clock.waitForSleepers(3)
        clock.advance(by: .seconds(2))
        #expect(clock.sleeperCount == 1)
        try await sleepers[0].value
        try await sleepers[1].value
        clock.advance(by: .seconds(1))
        try await sleepers[2].value
        #expect(clock.sleeperCount == 0)
    }

    @Test("a cancelled sleeper throws CancellationError at once and leaves the clock")
    func cancelledSleeper() async {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        let sleeper = Task { try await clock.sleep(for: .seconds(280)) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("a deadline already passed returns at once, on both clocks")
    func pastDeadline() async throws {
        let manual = EmulatorClock.manual(startingAt: startInstant)
        try await manual.sleep(until: manual.now)
        let system = EmulatorClock.system()
        try await system.sleep(until: system.now.advanced(by: .seconds(-1)))
        #expect(manual.sleeperCount == 0 && system.sleeperCount == 0)
    }

    @Test("a system clock moves by an offset, wakes sleepers the jump passes, and can be stopped")
    func systemClockMoves() async throws {
        let clock = EmulatorClock.system()
        #expect(!clock.isStopped)
        #expect(abs(clock.now.date.timeIntervalSinceNow) < 60)
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(7200))
        try await sleeper.value
        #expect(abs(clock.now.date.timeIntervalSinceNow - 7200) < 60)
        clock.set(to: EmulatorClock.Instant(startInstant))
        #expect(clock.isStopped)
        #expect(clock.now == EmulatorClock.Instant(startInstant))
    }

    @Test("instants convert to and from dates without losing an exact fraction")
    func instantConversions() {
        let instant = EmulatorClock.Instant(startInstant)
        #expect(instant.nanosecondsSince1970 == 1_788_766_495_265_625_000)
        #expect(instant.microsecondsSince1970 == 1_788_766_495_265_625)
        #expect(instant.date == startInstant)
        #expect(EmulatorClock.Instant(nanosecondsSince1970: -1).microsecondsSince1970 == -1)
        #expect(instant.duration(to: instant.advanced(by: .milliseconds(1500))) == .milliseconds(1500))
    }

    @Test("dates out of the 64-bit nanosecond range clamp instead of trapping")
    func extremeDates() async throws {
        #expect(EmulatorClock.Instant(.distantFuture).nanosecondsSince1970 == .max)
        #expect(EmulatorClock.Instant(.distantPast).nanosecondsSince1970 == .min)
        #expect(EmulatorClock.Instant(nanosecondsSince1970: .min).microsecondsSince1970 == .min / 1000 - 1)
        let clock = EmulatorClock.manual(startingAt: .distantPast)
        #expect(clock.timetoken(for: "demo") == 1)
        let emulator = try Emulator(configuration: EmulatorConfiguration(clock: clock))
        await emulator.advanceTime(bySeconds: .infinity)
        await emulator.advanceTime(bySeconds: .nan)
        #expect(clock.now.nanosecondsSince1970 == .min)
    }

    @Test("the emulator's time controls move its injected clock")
    func emulatorMovesItsClock() async throws {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        let emulator = try Emulator(configuration: EmulatorConfiguration(clock: clock))
        #expect(emulator.clock === clock)
        await emulator.advanceTime(days: 1)
        #expect(clock.now == EmulatorClock.Instant(startInstant).advanced(by: .seconds(86_400)))
        #expect(await emulator.currentTime == startInstant.addingTimeInterval(86_400))

        let stopped = try Emulator(
            configuration: EmulatorConfiguration(startTime: startInstant, clock: EmulatorClock.system()))
        #expect(stopped.clock.isStopped)
        #expect(await stopped.currentTime == startInstant)
        #expect(try Emulator().clock.isStopped == false)
    }
}
