import PubNubBase
import PubNubCore
import Testing

@Suite("Origin health: observers and sequence numbers")
struct OriginHealthTests {
    @Test("each observer hears every later report, in the order it was added, until it is removed")
    func observers() {
        let health = OriginHealth()
        let heard = Locked<[String]>([])
        // Nobody listening: a report goes nowhere and changes nothing.
        health.report(.answered, sequence: health.begin())
        let first = health.addObserver { signal in heard.withLock { $0.append("first \(signal.sequence)") } }
        let second = health.addObserver { signal in heard.withLock { $0.append("second \(signal.sequence)") } }
        let sequence = health.begin()
        #expect(sequence == 2)
        health.report(.timedOut, sequence: sequence)
        health.removeObserver(first)
        health.report(.answered, sequence: health.begin())
        health.removeObserver(second)
        health.report(.answered, sequence: health.begin())
        #expect(heard.withLock { $0 } == ["first 2", "second 2", "second 3"])
        #expect(health.mark() == 4)
    }

    @Test("removing one observer keeps the others, whatever the order of removal")
    func removalKeepsTheRest() {
        let health = OriginHealth()
        let heard = Locked<[Int]>([])
        let keys = (0..<4).map { index in
            health.addObserver { _ in heard.withLock { $0.append(index) } }
        }
        health.removeObserver(keys[2])
        health.removeObserver(keys[0])
        health.removeObserver(keys[0])  // twice: nothing more happens
        health.report(.connectionLost, sequence: health.begin())
        #expect(heard.withLock { $0 } == [1, 3])
    }
}
