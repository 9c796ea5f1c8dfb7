#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a mutex: the one lock wrapper of the package, for state that synchronous
/// code and tasks on any thread share (the client's components, the subscribe loop's bookkeeping,
/// the emulator's stores and the HTTP server's event-loop thread).
///
/// The value and its mutex live in one heap allocation, shared by every copy of the wrapper (a
/// copy guards the same value). One allocation matters where many are held at once: the emulator
/// keeps one per held long-poll.
///
/// `@unchecked Sendable` is sound: the value is only read or written inside ``withLock(_:)`` or
/// ``withLockIfAvailable(_:)``, which hold the mutex stored beside it for the whole access, so no
/// two threads touch it at once. The closures are synchronous, so the mutex is never held across
/// an `await`. `Value` is not constrained to `Sendable` (the emulator's and the HTTP server's state
/// never was); whatever a closure returns out of the lock must itself be safe to share.
package struct Locked<Value>: @unchecked Sendable {
    /// The value as the buffer's header and the mutex as its one element: the element storage has
    /// a fixed address for the life of the box, as a `pthread_mutex_t` requires.
    private final class Box: ManagedBuffer<Value, pthread_mutex_t> {
        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }

    private let box: Box

    /// Guards `value`.
    package init(_ value: Value) {
        // `create` called on the subclass makes an instance of it.
        box = unsafeDowncast(Box.create(minimumCapacity: 1) { _ in value }, to: Box.self)
        box.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            _ = pthread_mutex_init(mutex, nil)
        }
    }

    /// Runs `body` with the lock held, waiting for it when another thread holds it.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try box.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// Runs `body` with the lock held when the lock is free right now; returns nil, without
    /// waiting, when another thread holds it (for code that must not block, such as an answer
    /// given on the server's event-loop thread).
    package func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        try box.withUnsafeMutablePointers { value, mutex in
            guard pthread_mutex_trylock(mutex) == 0 else { return nil }
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
