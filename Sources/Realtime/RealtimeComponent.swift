package import PubNubCore

/// The real-time part of a client: the hub (names, listeners, presence state) and the subscribe
/// loop, made on first use and shut down with the client.
package final class RealtimeComponent: PubNubComponent {
    package let hub: RealtimeHub
    package let loop: SubscribeLoop

    package init(pipeline: ServicePipeline, unitRandom: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) })
    {
        let (inbox, continuation) = AsyncStream.makeStream(
            of: SubscribeStateMachine.Event.self, bufferingPolicy: .unbounded)
        hub = RealtimeHub(
            inbox: continuation, completionContext: pipeline.configuration.completionContext,
            warningHandler: pipeline.configuration.warningHandler, logger: pipeline.configuration.logger)
        let loop = SubscribeLoop(pipeline: pipeline, hub: hub, unitRandom: unitRandom)
        self.loop = loop
        originHealth = pipeline.originHealth
        // The hub only queues the signal for the loop (and only when the loop's state would act on
        // it), which filters and acts on it in order with everything else; the closure holds the
        // hub, never the client.
        let hub = self.hub
        originObserver = pipeline.originHealth.addObserver { signal in hub.offerOriginSignal(signal) }
        pathObservation = pipeline.configuration.networkPathMonitor?.observe { update in
            hub.send(.networkPath(update))
        }
        Task { await loop.run(inbox) }
    }

    private let originHealth: OriginHealth
    private let originObserver: UInt64
    private let pathObservation: NetworkPathObservation?

    package func shutDown() {
        originHealth.removeObserver(originObserver)
        pathObservation?.cancel()
        hub.shutDown()
        loop.shutDownNow()
    }

    /// Whether the loop has handled every event sent to it so far: a test waits for this before
    /// it checks that an event changed nothing.
    package var isSettled: Bool { loop.handledEventCount >= hub.sentEventCount }

    package func tokenDidChange() {
        hub.send(.tokenChanged)
    }
}

extension PubNub {
    /// The client's real-time component, made on first use.
    package var realtime: RealtimeComponent {
        let pipeline = self.pipeline
        return components.component { RealtimeComponent(pipeline: pipeline) }
    }
}
