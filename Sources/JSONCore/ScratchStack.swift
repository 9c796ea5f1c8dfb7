/// Values a parser has collected for the containers it is inside: raw storage whose first
/// `count` slots hold values, so that a push is a store and a container's values leave by a move.
/// Values still held when the stack goes away (a parse that threw) are destroyed then.
final class ScratchStack<Element> {
    private(set) var count = 0
    private var capacity: Int
    private var storage: UnsafeMutablePointer<Element>

    init() {
        capacity = 16
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    @inline(__always)
    func push(_ element: Element) {
        if count == capacity { grow() }
        (storage + count).initialize(to: element)
        count += 1
    }

    private func grow() {
        let larger = capacity * 2
        let replacement = UnsafeMutablePointer<Element>.allocate(capacity: larger)
        replacement.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = replacement
        capacity = larger
    }

    /// A copy of the value at `position`, which must be below `count`.
    @inline(__always)
    subscript(position: Int) -> Element { storage[position] }

    /// The slots in use, for reading.
    @inline(__always)
    func withElements<Result>(_ body: (UnsafeBufferPointer<Element>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage, count: count))
    }

    /// Moves the value at `position` (below `count`) out. The slot is left uninitialised: the
    /// caller moves out every value from some base and then calls ``forget(from:)`` with it.
    @inline(__always)
    func moveElement(at position: Int) -> Element { (storage + position).move() }

    /// Drops the slots from `base` on, whose values were all moved out.
    @inline(__always)
    func forget(from base: Int) { count = base }

    /// Destroys the values from `base` on.
    func removeAll(from base: Int) {
        (storage + base).deinitialize(count: count - base)
        count = base
    }
}
