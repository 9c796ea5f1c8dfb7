import Foundation

/// The threads request handlers run on: a small pool of the server's own, shared by every
/// ``HTTPServer`` in the process, instead of Swift's cooperative pool.
///
/// The cooperative pool has one thread per core and never takes a thread back from a job that
/// computes for long. A server embedded in a test process (or an app) shares that pool with
/// whatever else the process does, so on a 2-core machine two busy tests could hold every answer
/// back for seconds and a client's timeout fired although the server was idle. Handlers here are
/// tasks that prefer this executor (SE-0417): their code, and the default actors they call, run on
/// these threads, which the operating system time-slices against everything else. A handler that
/// waits (a long-poll, a clock sleep) holds no thread.
///
/// `@unchecked Sendable` is safe: `jobs` and `head` are only touched with `condition` locked.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class HandlerThreads: TaskExecutor, @unchecked Sendable {
    /// The pool every server shares: twice the cores, at least four threads, so that one handler
    /// computing for long (a 10 MB body, a filter over many objects) leaves others running.
    static let shared = HandlerThreads(count: max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    /// Index of the next job to run in `jobs`; the taken prefix is dropped once it is large.
    private var head = 0

    private init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [self] in work() }
            thread.name = "EmulatorHTTP.handler.\(index)"
            // As much stack as the cooperative pool's threads get: handlers parse nested JSON.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while head == jobs.count {
                condition.wait()
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}

/// Starts `operation` as a detached task on ``HandlerThreads/shared`` where the platform has task
/// executors (every Linux toolchain this package builds with; Apple systems from 2024), and as a
/// plain detached task elsewhere.
///
/// For the server's handlers, and for the emulator's own background work that an answer waits
/// for (publishing a DataSync write's events, sweeping expired objects): work started from a
/// caller's task would otherwise run on the cooperative pool the caller keeps busy.
package func detachedHandlerTask(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
        return Task.detached(executorPreference: HandlerThreads.shared, operation: operation)
    }
    return Task.detached(operation: operation)
}
