import DataSyncTestSupport
import JSONCore
import PubNubCore
import Realtime
import Testing
import Transport

@Suite("Subscription.isReceiving follows the loop's long-poll")
struct ReceivingStateTests {
    @Test("false until the handshake answers, then true; already-held names count at once")
    func handshakeThenReceiving() async {
        let (service, _, pubnub) = scriptedClient()
        let seen = Recorder<Bool>()
        let first = pubnub.channel("a").subscription()
        // Statuses are delivered after the flag moved: a listener reads the new value.
        pubnub.onStatus = { _ in seen.append(first.isReceiving) }
        #expect(!first.isReceiving, "not subscribed yet")
        first.subscribe()
        #expect(await service.waitForSubscribes(1))
        #expect(!first.isReceiving, "the handshake is still out")
        service.push(Answer.subscribe("100"))
        #expect(await seen.waitFor(1))
        #expect(seen.all == [true])
        #expect(first.isReceiving)

        // A second subscription to a name the loop already receives is receiving as soon as it
        // is subscribed: no new handshake, no new status.
        let twin = pubnub.channel("a").subscription()
        #expect(!twin.isReceiving, "not subscribed")
        twin.subscribe()
        #expect(twin.isReceiving)

        // A new name joins the long-poll with the cursor kept; it counts once the loop took it in.
        let other = pubnub.channel("b").subscription()
        other.subscribe()
        #expect(await seen.waitFor(2))
        #expect(other.isReceiving)
        let set = pubnub.subscription(entities: [pubnub.channel("a"), pubnub.channel("b")])
        set.subscribe()
        #expect(set.isReceiving)

        other.unsubscribe()
        #expect(!other.isReceiving, "unsubscribed")
        #expect(first.isReceiving)
    }

    @Test("a failed long-poll clears it until the loop reconnects; a 403 until a new token")
    func failuresClearIt() async {
        let (service, clock, pubnub) = scriptedClient()
        let subscription = pubnub.channel("a").subscription()
        let seen = Recorder<(PubNubStatus.Category, Bool)>()
        pubnub.onStatus = { seen.append(($0.category, subscription.isReceiving)) }
        service.push(Answer.subscribe("100"))
        subscription.subscribe()
        #expect(await seen.waitFor(1))
        #expect(await service.waitForHeld())

        service.push(.failure(TransportError(code: .connectionLost, message: "reset")))
        #expect(await seen.waitFor(2))
        #expect(!subscription.isReceiving)
        service.push(Answer.subscribe("150"))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        #expect(await seen.waitFor(3))
        #expect(await service.waitForHeld())

        service.push(Answer.status(403, ["message": "Forbidden", "error": true, "status": 403]))
        #expect(await seen.waitFor(4))
        #expect(!subscription.isReceiving)
        service.push(Answer.subscribe("200"))
        pubnub.set(token: "new")
        #expect(await seen.waitFor(5))
        #expect(
            seen.all.map { "\($0.0):\($0.1)" } == [
                "connected:true", "unexpectedDisconnect:false", "reconnected:true", "accessDenied:false",
                "connected:true",
            ])

        pubnub.disconnect()
        #expect(await seen.waitFor(6))
        #expect(seen.all.last.map { "\($0.0):\($0.1)" } == "disconnected:false")
    }
}
