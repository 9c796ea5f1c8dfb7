import EmulatorHTTP

/// The first look of subscribe receives with a cursor, batched (``FirstLooks``).
extension PubSubBus {
    /// Queues the first look of `held` (with the presence to record before it) and returns at
    /// once; the answer goes to `held.pending`, or the receive is parked.
    nonisolated func lookSoon(_ look: FirstLooks.Look) {
        guard firstLooks.add(look) else { return }
        _ = detachedHandlerTask { [self] in await takeFirstLooks() }
    }

    /// Takes every queued first look in this one turn, until the queue is empty.
    func takeFirstLooks() {
        while true {
            let batch = firstLooks.take()
            if batch.isEmpty { return }
            for look in batch { first(look) }
        }
    }

    /// As the subscribe handler did it in its own task: presence (refused: a `400`), then the log.
    private func first(_ look: FirstLooks.Look) {
        let held = look.held
        if let uuid = look.uuid,
            let refusal = touch(
                subscribeKey: held.subscribeKey, uuid: uuid, channels: held.subscription.presenceTargets,
                groups: held.subscription.presenceGroups, timeout: look.timeout, state: look.state)
        {
            held.pending.succeed(PubSubWire.serviceError(400, refusal.message, service: "Presence"))
            return
        }
        if let response = held.look(on: self) { held.pending.succeed(response) }
    }
}
