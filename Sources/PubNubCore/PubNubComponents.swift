import PubNubBase

/// A long-lived part of a client that a feature attaches to it, such as the subscribe loop.
///
/// The client keeps its components and calls ``shutDown()`` once when it is released
/// (`disconnect()` only pauses the subscribe loop, which stays a component). A component must never hold a strong
/// reference to the ``PubNub`` client: it gets what it needs (the ``ServicePipeline``, the clock)
/// when it is made, so releasing the client really ends its work.
package protocol PubNubComponent: AnyObject, Sendable {
    /// Stops all background work now: cancel tasks, finish streams. Called synchronously (from
    /// `deinit` among others), so it must neither block nor wait for the work to end.
    func shutDown()

    /// Called after ``PubNub/set(token:)`` replaced the token, so a component stopped by an access
    /// denial can try again. Must neither block nor wait. Does nothing by default.
    func tokenDidChange()
}

extension PubNubComponent {
    /// Does nothing.
    package func tokenDidChange() {}
}

/// The components of one client, at most one of each type, made on first use.
package final class PubNubComponents: Sendable {
    private let state = Locked<State>(State())

    private struct State: Sendable {
        var components: [ObjectIdentifier: any PubNubComponent] = [:]
        var isShutDown = false
    }

    package init() {}

    /// The component of type `C`, made by `make` the first time it is asked for.
    ///
    /// After ``shutDownAll()`` a newly made component is shut down at once (and not kept), so work
    /// started on a released client ends immediately. `make` runs under the lock: it must not ask
    /// for other components.
    package func component<C: PubNubComponent>(_ type: C.Type = C.self, make: () -> C) -> C {
        let (component, shutDownAlready): (C, Bool) = state.withLock { state in
            let key = ObjectIdentifier(type)
            if let existing = state.components[key] as? C { return (existing, state.isShutDown) }
            let made = make()
            if !state.isShutDown { state.components[key] = made }
            return (made, state.isShutDown)
        }
        if shutDownAlready { component.shutDown() }
        return component
    }

    /// Whether ``shutDownAll()`` has run.
    package var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// Tells every component that the token changed.
    package func notifyTokenChanged() {
        let components = state.withLock { Array($0.components.values) }
        for component in components { component.tokenDidChange() }
    }

    /// Shuts every component down once and forgets them.
    package func shutDownAll() {
        let components = state.withLock { state in
            state.isShutDown = true
            defer { state.components = [:] }
            return Array(state.components.values)
        }
        for component in components { component.shutDown() }
    }
}
