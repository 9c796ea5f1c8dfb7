import DataSyncTestSupport
import Testing

@Suite("Waitable", .timeLimit(.minutes(1)))
struct WaitableTests {
    @Test("a condition that already holds answers at once")
    func alreadyHolds() async {
        let seen = Waitable(3)
        #expect(await seen.wait { $0 == 3 })
    }

    @Test("an update resumes exactly the waits whose condition now holds")
    func updateResumesSatisfiedWaits() async {
        let seen = Waitable<[Int]>([])
        let atTwo = Task { await seen.wait { $0.count >= 2 } }
        let atFive = Task { await seen.wait { $0.count >= 5 } }
        // A wait that starts after the updates sees the condition hold at once; one that starts
        // before must be resumed by `update`, or it runs into the time limit.
        seen.update { $0.append(1) }
        seen.update { $0.append(2) }
        #expect(await atTwo.value)
        atFive.cancel()
        #expect(await atFive.value == false)
        #expect(seen.value == [1, 2])
    }

    @Test("a cancelled wait answers false and leaves later waits working")
    func cancelledWait() async {
        let seen = Waitable(0)
        let never = Task { await seen.wait { $0 < 0 } }
        never.cancel()
        #expect(await never.value == false)
        let later = Task { await seen.wait { $0 == 1 } }
        seen.update { $0 = 1 }
        #expect(await later.value)
    }
}
