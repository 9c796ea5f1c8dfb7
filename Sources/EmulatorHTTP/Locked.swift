import Foundation

/// A value guarded by a lock, for state shared between the server's event-loop thread and tasks.
///
/// `@unchecked Sendable` is safe here: `value` is private and only read or written inside
/// `withLock`, which holds `lock` for the whole access, so no two threads touch it at once. The
/// closure never suspends (it is synchronous), so the lock is never held across an `await`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Runs `body` with the lock held when the lock is free right now; returns nil, without
    /// waiting, when another thread holds it (for code that must not block, such as an answer
    /// given on the server's event-loop thread).
    package func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}
