"""PubNub's official Python SDK (pubnub==10.8.0) as a peer of the Swift Realtime and Messaging
modules, driven by Tests/RealtimeIntegrationTests/PythonPeerTests.swift against an emulator the
Swift test runs in process.

Usage:
  realtime_interop.py publish ORIGIN BUDGET      publish the fixed set below, print one JSON line
  realtime_interop.py subscribe ORIGIN N BUDGET  subscribe, print READY once connected, then print
                                                 every message or signal as a JSON line until N
                                                 arrived
Keys: demo/demo. Cipher key: interop-key. Channels: rt.plain (no crypto), rt.secret (encrypted).
BUDGET is the seconds the whole run may take, counted from the start: the Swift test passes the
budget its own waits use, so a loaded machine slows both sides alike instead of running out one
fixed window here while the test is still on its way to publishing. Exits non-zero (printing
TIMEOUT) when something does not happen within it.
"""

import asyncio
import json
import sys

from pubnub.callbacks import SubscribeCallback
from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule
from pubnub.enums import PNStatusCategory
from pubnub.pubnub_asyncio import PubNubAsyncio

from interop_common import configuration


CIPHER_KEY = "interop-key"


def client(origin, user_id, budget, module=None):
    config = configuration(origin, "demo", "demo", user_id)
    # The SDK's 10 s defaults are a guess about the machine; one request may take as long as the
    # run. The SDK asserts whole seconds.
    config.non_subscribe_request_timeout = int(budget)
    config.connect_timeout = int(budget)
    if module is not None:
        config.cipher_key = CIPHER_KEY
        config.crypto_module = module(config)
    return PubNubAsyncio(config)


async def publish(origin, budget):
    plain = client(origin, "py-publisher", budget)
    aes = client(origin, "py-aes", budget, AesCbcCryptoModule)
    legacy = client(origin, "py-legacy", budget, LegacyCryptoModule)
    try:
        sent = {}
        result = await plain.publish().channel("rt.plain").message({"text": "from python", "n": [1, 2]}) \
            .meta({"lang": "py"}).custom_message_type("py-text").future()
        sent["plain"] = result.result.timetoken
        result = await plain.signal().channel("rt.plain").message("py-typing").future()
        sent["signal"] = result.result.timetoken
        result = await aes.publish().channel("rt.secret").message({"secret": "aes"}).future()
        sent["aes"] = result.result.timetoken
        result = await legacy.publish().channel("rt.secret").message({"secret": "legacy"}).future()
        sent["legacy"] = result.result.timetoken
        print(json.dumps(sent), flush=True)
        return 0
    finally:
        for pubnub in (plain, aes, legacy):
            await pubnub.stop()


class Recorder(SubscribeCallback):
    def __init__(self, label):
        self.label = label
        self.connected = asyncio.Event()
        self.received = []
        self.changed = asyncio.Event()

    def status(self, pubnub, status):
        if status.category == PNStatusCategory.PNConnectedCategory:
            self.connected.set()

    def _add(self, kind, event):
        self.received.append({
            "client": self.label, "kind": kind, "channel": event.channel, "payload": event.message,
            "publisher": event.publisher, "timetoken": event.timetoken,
            "meta": getattr(event, "user_metadata", None),
            "customMessageType": getattr(event, "custom_message_type", None),
            "error": None if getattr(event, "error", None) is None else str(event.error),
        })
        print(json.dumps(self.received[-1]), flush=True)
        self.changed.set()

    def message(self, pubnub, message):
        self._add("message", message)

    def signal(self, pubnub, signal):
        self._add("signal", signal)


async def subscribe(origin, count, budget):
    # One deadline for the whole run: connecting and receiving share the budget.
    deadline = asyncio.get_running_loop().time() + budget
    plain = client(origin, "py-plain-reader", budget)
    secret = client(origin, "py-secret-reader", budget, AesCbcCryptoModule)
    readers = [(plain, Recorder("plain"), "rt.plain"), (secret, Recorder("secret"), "rt.secret")]
    try:
        for pubnub, recorder, channel in readers:
            pubnub.add_listener(recorder)
            pubnub.subscribe().channels([channel]).execute()
        for _, recorder, _ in readers:
            remaining = deadline - asyncio.get_running_loop().time()
            try:
                await asyncio.wait_for(recorder.connected.wait(), max(remaining, 0))
            except asyncio.TimeoutError:
                print("TIMEOUT connecting " + recorder.label, flush=True)
                return 1
        print("READY", flush=True)
        while sum(len(r.received) for _, r, _ in readers) < count:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                print("TIMEOUT", flush=True)
                return 1
            waits = [asyncio.ensure_future(r.changed.wait()) for _, r, _ in readers]
            await asyncio.wait(waits, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            for wait in waits:
                wait.cancel()
            for _, recorder, _ in readers:
                recorder.changed.clear()
        print("DONE", flush=True)
        return 0
    finally:
        for pubnub, _, _ in readers:
            pubnub.unsubscribe_all()
            await pubnub.stop()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "publish":
        sys.exit(asyncio.run(publish(sys.argv[2], float(sys.argv[3]))))
    if len(sys.argv) == 5 and sys.argv[1] == "subscribe":
        sys.exit(asyncio.run(subscribe(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))))
    print(__doc__)
    sys.exit(2)
