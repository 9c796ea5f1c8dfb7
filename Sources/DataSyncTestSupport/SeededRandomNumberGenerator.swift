/// A small, fast random number generator (SplitMix64) that produces the same sequence for the
/// same seed, so generated tests and benchmark inputs are reproducible. Not for cryptography.
///
/// ```swift
/// var generator = SeededRandomNumberGenerator(seed: 42)
/// let roll = Int.random(in: 1...6, using: &generator)  // the same on every run
/// ```
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    /// The internal state; it advances by a fixed odd constant on every draw.
    public private(set) var state: UInt64

    /// Creates a generator whose sequence is determined by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
