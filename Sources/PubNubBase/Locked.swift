import Foundation

/// A value guarded by a mutex: the one lock wrapper of the package, for state that synchronous
/// code and tasks on any thread share (the client's components, the subscribe loop's bookkeeping,
/// the emulator's stores and the HTTP server's event-loop thread).
///
/// `@unchecked Sendable` is sound: `value` is private and only read or written inside
/// ``withLock(_:)`` or ``withLockIfAvailable(_:)``, which hold `lock` for the whole access, so no
/// two threads touch it at once. The closures are synchronous, so the lock is never held across
/// an `await`. `Value` is not constrained to `Sendable` (the emulator's and the HTTP server's state
/// never was); whatever a closure returns out of the lock must itself be safe to share.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the lock held, waiting for it when another thread holds it.
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
