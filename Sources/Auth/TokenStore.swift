import Foundation
import PubNubBase

/// Holds the token the SDK sends with every request. Safe to use from any task or thread.
///
/// Every request reads the token when it is sent, so ``set(token:)`` reaches every later
/// request, including those of a subscribe loop that is already running.
///
/// ```swift
/// let store = TokenStore()
/// store.set(token: tokenFromMyServer)
/// ```
///
/// ``description`` shows only a short prefix of the token and its length.
public final class TokenStore: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The token and a counter bumped by every change, so a refresh can tell whether the token it
    /// was asked to replace is still the current one.
    package struct Snapshot: Sendable, Equatable {
        /// The token, or `nil` when none is set.
        package var token: String?
        /// Changes every time the token is replaced.
        package var generation: UInt64
    }

    private struct State {
        var snapshot = Snapshot(token: nil, generation: 0)
        var refresh: (id: UInt64, generation: UInt64, task: Task<Snapshot, any Error>)?
        var nextRefreshID: UInt64 = 0
    }

    private let state: Locked<State>

    /// Creates a store, optionally holding a first token.
    public init(token: String? = nil) {
        var initial = State()
        initial.snapshot.token = token
        state = Locked(initial)
    }

    /// The token sent with requests from now on, or `nil` for none.
    public var token: String? { state.withLock { $0.snapshot.token } }

    /// Replaces the token; `nil` removes it. Requests already on the wire keep the token they were
    /// sent with; every request sent afterwards carries the new one.
    public func set(token: String?) {
        state.withLock { state in
            state.snapshot.token = token
            state.snapshot.generation &+= 1
        }
    }

    /// The token's redacted form, e.g. `TokenStore(qEF2Ak…(320 chars))`.
    public var description: String {
        guard let token else { return "TokenStore(no token)" }
        return "TokenStore(\(TokenRedaction.redact(token)))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The redacted token only, so `dump` never reaches the stored text.
    public var customMirror: Mirror {
        Mirror(self, children: ["token": token.map(TokenRedaction.redact) as Any], displayStyle: .class)
    }

    /// The token and its generation, read together.
    package var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// Obtains a new token from `provider` unless the token of `staleGeneration` was already
    /// replaced, joining a refresh that is already running for that generation, so concurrent
    /// callers cause a single provider call. Returns the snapshot to use.
    ///
    /// A token set with ``set(token:)`` while the provider works wins over the provider's answer.
    package func refresh(
        using provider: any TokenProvider, reason: TokenRefreshReason, replacing staleGeneration: UInt64
    ) async throws -> Snapshot {
        enum Step {
            case ready(Snapshot)
            case wait(Task<Snapshot, any Error>)
        }
        let step: Step = state.withLock { state in
            if state.snapshot.generation != staleGeneration {
                return .ready(state.snapshot)
            }
            if let running = state.refresh, running.generation == staleGeneration {
                return .wait(running.task)
            }
            let id = state.nextRefreshID
            state.nextRefreshID &+= 1
            // Unstructured on purpose: the refresh serves every waiting request, so one caller's
            // cancellation must not cancel it for the others.
            let task = Task { [self] in
                try await self.runRefresh(id: id, provider: provider, reason: reason, generation: staleGeneration)
            }
            state.refresh = (id, staleGeneration, task)
            return .wait(task)
        }
        switch step {
        case .ready(let snapshot): return snapshot
        case .wait(let task): return try await task.value
        }
    }

    private func runRefresh(
        id: UInt64, provider: any TokenProvider, reason: TokenRefreshReason, generation: UInt64
    ) async throws -> Snapshot {
        let result: Result<String, any Error>
        do {
            let token = try await provider.token(for: reason)
            result =
                token.isEmpty
                ? .failure(AuthError(code: .tokenUnavailable, message: "the token provider returned an empty token"))
                : .success(token)
        } catch {
            result = .failure(error)
        }
        return try state.withLock { state in
            if state.refresh?.id == id { state.refresh = nil }
            let token = try result.get()
            if state.snapshot.generation == generation {
                state.snapshot.token = token
                state.snapshot.generation &+= 1
            }
            return state.snapshot
        }
    }
}
