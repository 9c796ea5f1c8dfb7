import DataSyncLive
import DataSyncModels
import Foundation
import PubNubCore
import Realtime
import Testing

/// Drives a machine for the memberships of `general` and records what it says.
struct Driver {
    typealias Machine = LiveViewMachine<PubNubDataSyncMembership>
    var machine: Machine
    var snapshots: [PubNubLiveSnapshot<PubNubDataSyncMembership>] = []
    var effects: [Machine.Effect] = []

    init(options: PubNubLiveViewOptions = Driver.options) throws {
        let definition = try LiveViewDefinition<PubNubDataSyncMembership>.memberships(of: "general", channelSide: true)
        machine = Machine(options: options, projection: definition.projection, interpret: definition.interpret) { 0 }
    }

    static var options: PubNubLiveViewOptions {
        PubNubLiveViewOptions(
            retryPolicy: .exponential(minimumDelay: .seconds(1), maximumDelay: .seconds(8), maximumJitter: .zero))
    }

    /// Feeds `input`; returns its effects and takes a snapshot when there is news.
    @discardableResult
    mutating func send(_ input: Machine.Input) -> [Machine.Effect] {
        let produced = machine.handle(input)
        effects += produced
        if machine.hasNews { snapshots.append(machine.takeSnapshot()) }
        return produced
    }

    var last: PubNubLiveSnapshot<PubNubDataSyncMembership>? { snapshots.last }

    /// Starts the machine on a receiving loop and answers the read it asks for with `objects`: a
    /// view that is current.
    mutating func startCurrent(
        with objects: [PubNubDataSyncMembership], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let read = try #require(readGeneration(send(.started(isReceiving: true))), sourceLocation: sourceLocation)
        send(.readSucceeded(generation: read, objects))
    }

    /// The generation of the read the last effects asked for.
    func readGeneration(_ effects: [Machine.Effect]) -> UInt64? {
        for effect in effects {
            if case .read(let generation) = effect { return generation }
        }
        return nil
    }
}

@Suite("The live-view machine: subscribe, read, buffer, stale, read again")
struct MachineTests {
    @Test("nothing is read before the loop receives; events during the read are applied after it")
    func firstRead() throws {
        var driver = try Driver()
        #expect(driver.send(.started(isReceiving: false)).isEmpty)
        #expect(driver.send(.status(Events.status(.connected), isReceiving: false)).isEmpty, "another channel's")
        let effects = driver.send(.status(Events.status(.connected), isReceiving: true))
        let read = try #require(driver.readGeneration(effects))
        // Changes committed while the read runs arrive as events and wait for it.
        driver.send(.event(Events.upsert(membership("m2", user: "u2", created: 3), created: true)))
        driver.send(.event(Events.upsert(membership("m1", user: "u1", created: 1, updated: 4))))
        driver.send(.event(Events.deleteMembership("m3", at: 5)))
        driver.send(.event(Events.userUpdated("u1", at: 6)))
        #expect(driver.snapshots.isEmpty, "no snapshot before the first read ends")
        #expect(driver.machine.buffer.count == 3, "the fanned-out user update is not about the view")

        driver.send(
            .readSucceeded(
                generation: read,
                [membership("m1", user: "u1", created: 1, updated: 2), membership("m3", user: "u3", created: 1)]))
        let first = try #require(driver.last)
        #expect(first.ids == ["m1", "m2"])
        #expect(first[id: "m1"]?.updatedAt == at(4), "the held-back update is newer than the read")
        #expect(first.change == PubNubLiveChange(inserted: ["m1", "m2"]))
        #expect(first.isCurrent && first.isComplete && first.staleness == nil)
        #expect(first.projection == "__default__")
        #expect(first.sequence == 1)

        driver.send(.event(Events.upsert(membership("m1", user: "u1", created: 1, updated: 3))))
        #expect(driver.snapshots.count == 1, "an older copy changes nothing, so says nothing")
        driver.send(.event(Events.deleteMembership("m2", at: 7)))
        #expect(driver.last?.change == PubNubLiveChange(removed: ["m2"]))
        #expect(driver.last?.ids == ["m1"])
    }

    @Test("a gap makes the view stale at once, keeps its values, reads again and reports current")
    func gapThenRead() throws {
        var driver = try Driver()
        try driver.startCurrent(with: [membership("m1", user: "u1", created: 1)])
        let reread = try #require(driver.readGeneration(driver.send(.gap(Events.gap()))))
        let stale = try #require(driver.last)
        #expect(!stale.isCurrent)
        #expect(stale.isComplete)
        #expect(stale.staleness == PubNubLiveStaleness(reason: .gap, detail: "tooManyEvents"))
        #expect(stale.ids == ["m1"] && stale.change.isEmpty)
        // A second gap during the read owes another read after it.
        #expect(driver.send(.gap(Events.gap(.unreadableEvents))).isEmpty)
        let again = try #require(
            driver.readGeneration(
                driver.send(.readSucceeded(generation: reread, [membership("m2", user: "u2", created: 2)]))))
        #expect(driver.last?.staleness?.reason == .gap, "still stale: a read that began after the gap is owed")
        #expect(driver.last?.ids == ["m2"])
        driver.send(.readSucceeded(generation: again, [membership("m2", user: "u2", created: 2)]))
        #expect(driver.last?.isCurrent == true)
        #expect(driver.last?.change.isEmpty == true, "freshness alone changed")
    }

    @Test("an interruption is stale until the loop receives again, then a read makes it current")
    func interruption() throws {
        var driver = try Driver()
        try driver.startCurrent(with: [])
        let lost = Events.status(.unexpectedDisconnect, isError: true)
        #expect(driver.send(.status(lost, isReceiving: false)).isEmpty, "no read while not receiving")
        #expect(driver.last?.staleness == PubNubLiveStaleness(reason: .interrupted, detail: "unexpectedDisconnect"))
        // While not receiving, events that do arrive (a catch-up) still apply.
        driver.send(.event(Events.upsert(membership("m1", user: "u1", created: 1))))
        #expect(driver.last?.ids == ["m1"])
        #expect(driver.send(.status(Events.status(.networkIssues, isError: true), isReceiving: false)).isEmpty)
        let reread = try #require(
            driver.readGeneration(driver.send(.status(Events.status(.reconnected), isReceiving: true))))
        #expect(driver.last?.isCurrent == false)
        driver.send(.readSucceeded(generation: reread, [membership("m1", user: "u1", created: 1)]))
        #expect(driver.last?.isCurrent == true)
    }

    @Test("with rereadsAfterInterruption off, a resumed loop is trusted; a gap still causes a read")
    func trustedResume() throws {
        var options = Driver.options
        options.rereadsAfterInterruption = false
        var driver = try Driver(options: options)
        try driver.startCurrent(with: [])
        driver.send(.status(Events.status(.disconnected), isReceiving: false))
        #expect(driver.last?.staleness?.reason == .interrupted)
        #expect(driver.send(.status(Events.status(.connected), isReceiving: true)).isEmpty)
        #expect(driver.last?.isCurrent == true)
        #expect(driver.readGeneration(driver.send(.gap(Events.gap(.couldNotResume)))) != nil)
    }

    @Test("a failed read retries with the policy's backoff; the values keep flowing while stale")
    func backoff() throws {
        var driver = try Driver()
        try driver.startCurrent(with: [membership("m1", user: "u1", created: 1)])
        var generation = try #require(driver.readGeneration(driver.send(.gap(Events.gap()))))
        let unavailable = PubNubError(reason: .serviceUnavailable, message: "503", statusCode: 503)
        var delays: [Duration] = []
        for attempt in 1...5 {
            driver.send(.event(Events.upsert(membership("m\(attempt + 1)", user: "u", created: Double(attempt)))))
            let effects = driver.send(.readFailed(generation: generation, unavailable))
            guard case .scheduleRetry(let timer, let delay)? = effects.first else {
                Issue.record("no retry after \(effects)")
                return
            }
            delays.append(delay)
            #expect(
                driver.last?.staleness == PubNubLiveStaleness(reason: .readFailed, detail: "503", failedReads: attempt))
            #expect(driver.last?.ids.count == attempt + 1, "held-back events were applied")
            #expect(driver.send(.status(Events.status(.connected), isReceiving: true)).isEmpty, "the timer decides")
            generation = try #require(driver.readGeneration(driver.send(.retryDue(generation: timer))))
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
        driver.send(.readSucceeded(generation: generation, [membership("m1", user: "u1", created: 1)]))
        #expect(driver.last?.isCurrent == true)
        #expect(driver.last?.ids == ["m1"], "the read is the truth for what it lacks")
    }

    @Test("an access denial waits for its backoff or a new token, whichever comes first")
    func accessDenied() throws {
        var driver = try Driver()
        let read = try #require(driver.readGeneration(driver.send(.started(isReceiving: true))))
        let forbidden = PubNubError(reason: .forbidden, message: "Token is revoked.", statusCode: 403)
        let effects = driver.send(.readFailed(generation: read, forbidden))
        guard case .scheduleRetry(let timer, .seconds(1))? = effects.first else {
            Issue.record("\(effects)")
            return
        }
        let stale = try #require(driver.last, "a failing first read is reported, stale and incomplete")
        #expect(!stale.isComplete && stale.isEmpty)
        #expect(
            stale.staleness == PubNubLiveStaleness(reason: .accessDenied, detail: "Token is revoked.", failedReads: 1))
        // The subscribe loop is refused too, then the token changes.
        driver.send(.status(Events.status(.accessDenied, isError: true, information: "Forbidden"), isReceiving: false))
        #expect(driver.last?.staleness?.reason == .accessDenied)
        let retried = driver.send(.tokenChanged)
        #expect(retried == [.cancelRetry], "the timer is dropped; the read waits for the loop")
        #expect(driver.send(.retryDue(generation: timer)).isEmpty, "the dropped timer is stale")
        let next = try #require(
            driver.readGeneration(driver.send(.status(Events.status(.connected), isReceiving: true))))
        driver.send(.readSucceeded(generation: next, []))
        #expect(driver.last?.isCurrent == true)
        #expect(driver.last?.isComplete == true)
    }

    @Test("reads that cannot succeed, a policy that gives up and too many objects end the view")
    func terminal() throws {
        var notFound = try Driver()
        let read = try #require(notFound.readGeneration(notFound.send(.started(isReceiving: true))))
        let missing = PubNubError(reason: .resourceNotFound, message: "no such class", statusCode: 404)
        #expect(notFound.send(.readFailed(generation: read, missing)) == [.fail(missing)])
        #expect(notFound.send(.gap(Events.gap())).isEmpty, "nothing after the end")

        var options = Driver.options
        options.retryPolicy = .linear(delay: .seconds(1), maximumAttempts: 1, maximumJitter: .zero)
        var giving = try Driver(options: options)
        var generation = try #require(giving.readGeneration(giving.send(.started(isReceiving: true))))
        let timeout = PubNubError(reason: .requestTimedOut, message: "slow")
        guard case .scheduleRetry(let timer, _)? = giving.send(.readFailed(generation: generation, timeout)).first
        else {
            Issue.record("no retry")
            return
        }
        generation = try #require(giving.readGeneration(giving.send(.retryDue(generation: timer))))
        #expect(giving.send(.readFailed(generation: generation, timeout)) == [.fail(timeout)])

        options = Driver.options
        options.maximumObjects = 2
        var large = try Driver(options: options)
        generation = try #require(large.readGeneration(large.send(.started(isReceiving: true))))
        large.send(.readSucceeded(generation: generation, [membership("a", user: "1", created: 1)]))
        large.send(.event(Events.upsert(membership("b", user: "2", created: 1))))
        let effects = large.send(.event(Events.upsert(membership("c", user: "3", created: 1))))
        guard case .fail(let error)? = effects.first else {
            Issue.record("\(effects)")
            return
        }
        #expect(error.reason == .liveViewTooLarge)
        #expect(PubNubLiveViewOptions(maximumObjects: 0).maximumObjects == 1)
    }

    @Test("more events during a read than the buffer holds: dropped, stale, read again")
    func overflow() throws {
        var options = Driver.options
        options.maximumBufferedEvents = 3
        var driver = try Driver(options: options)
        let read = try #require(driver.readGeneration(driver.send(.started(isReceiving: true))))
        for index in 0..<5 {
            driver.send(.event(Events.upsert(membership("m\(index)", user: "u\(index)", created: 1))))
        }
        let again = try #require(
            driver.readGeneration(
                driver.send(.readSucceeded(generation: read, [membership("m0", user: "u0", created: 1)]))))
        #expect(driver.last?.staleness?.reason == .overflow)
        #expect(driver.last?.isComplete == true)
        driver.send(.readSucceeded(generation: again, [membership("m0", user: "u0", created: 1)]))
        #expect(driver.last?.isCurrent == true)
    }

    @Test("failures are classified: access, may pass, cannot pass")
    func classification() {
        typealias Machine = LiveViewMachine<PubNubDataSyncMembership>
        #expect(Machine.classify(PubNubError(reason: .forbidden, message: "")) == .access)
        #expect(Machine.classify(PubNubError(reason: .unauthorized, message: "")) == .access)
        for reason: PubNubError.Reason in [
            .tooManyRequests, .serviceUnavailable, .connectionFailure, .malformedResponse,
        ] {
            #expect(Machine.classify(PubNubError(reason: reason, message: "")) == .transient, "\(reason)")
        }
        for reason: PubNubError.Reason in [.badRequest, .resourceNotFound, .invalidArguments, .liveViewTooLarge] {
            #expect(Machine.classify(PubNubError(reason: reason, message: "")) == .terminal, "\(reason)")
        }
    }
}
