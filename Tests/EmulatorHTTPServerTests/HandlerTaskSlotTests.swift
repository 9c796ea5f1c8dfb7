import EmulatorHTTP
import Testing

/// What the event loop keeps of a handler task: the handle only while the task runs, so a
/// finished task is not kept alive by the loop, and a running one can still be cancelled.
@Suite("HTTP server: handler task slot")
struct HandlerTaskSlotTests {
    /// Holds its task until released: the test decides when the task ends.
    final class Gate: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() { (stream, continuation) = AsyncStream.makeStream() }

        func wait() async { for await _ in stream { return } }
        func open() { continuation.yield() }
    }

    @Test("a running task is held and cancelled through the slot")
    func runningTaskIsHeldAndCancelled() async {
        let slot = HandlerTaskSlot()
        let gate = Gate()
        let task = Task {
            await gate.wait()
            slot.finished()
        }
        slot.started(task)
        #expect(slot.running != nil)
        slot.cancel()
        #expect(task.isCancelled)
        gate.open()
        await task.value
        #expect(slot.running == nil)
    }

    @Test("a task that ends lets go of its handle")
    func endedTaskLetsGo() async {
        let slot = HandlerTaskSlot()
        let task = Task { slot.finished() }
        slot.started(task)
        await task.value
        #expect(slot.running == nil)
        // Nothing to cancel any more: the call is a no-op, not a crash.
        slot.cancel()
    }

    @Test("a task that ended before its handle was stored is never held")
    func endedBeforeStartedIsNeverHeld() async {
        let slot = HandlerTaskSlot()
        slot.finished()
        let task = Task {}
        slot.started(task)
        #expect(slot.running == nil)
        await task.value
    }
}
