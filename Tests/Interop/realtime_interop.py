"""PubNub's official Python SDK (pubnub==10.8.0) as a peer of the Swift Realtime and Messaging
modules, driven by Tests/RealtimeIntegrationTests/PythonPeerTests.swift against an emulator the
Swift test runs in process.

Usage:
  realtime_interop.py publish ORIGIN      publish the fixed set below, print one JSON line
  realtime_interop.py subscribe ORIGIN N  subscribe, print READY once connected, then print every
                                          message or signal as a JSON line until N arrived
Keys: demo/demo. Cipher key: interop-key. Channels: rt.plain (no crypto), rt.secret (encrypted).
Exits non-zero when something does not happen in time.
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
WAIT = 20.0


def client(origin, user_id, module=None):
    config = configuration(origin, "demo", "demo", user_id)
    if module is not None:
        config.cipher_key = CIPHER_KEY
        config.crypto_module = module(config)
    return PubNubAsyncio(config)


async def publish(origin):
    plain = client(origin, "py-publisher")
    aes = client(origin, "py-aes", AesCbcCryptoModule)
    legacy = client(origin, "py-legacy", LegacyCryptoModule)
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


async def subscribe(origin, count):
    plain = client(origin, "py-plain-reader")
    secret = client(origin, "py-secret-reader", AesCbcCryptoModule)
    readers = [(plain, Recorder("plain"), "rt.plain"), (secret, Recorder("secret"), "rt.secret")]
    try:
        for pubnub, recorder, channel in readers:
            pubnub.add_listener(recorder)
            pubnub.subscribe().channels([channel]).execute()
        for _, recorder, _ in readers:
            await asyncio.wait_for(recorder.connected.wait(), WAIT)
        print("READY", flush=True)
        deadline = asyncio.get_running_loop().time() + WAIT
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
    if len(sys.argv) >= 3 and sys.argv[1] == "publish":
        sys.exit(asyncio.run(publish(sys.argv[2])))
    if len(sys.argv) >= 4 and sys.argv[1] == "subscribe":
        sys.exit(asyncio.run(subscribe(sys.argv[2], int(sys.argv[3]))))
    print(__doc__)
    sys.exit(2)
