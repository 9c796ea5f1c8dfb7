"""PubNub's official Python SDK (pubnub==10.8.0) as the publisher of the soak test
(Tests/RealtimeIntegrationTests/SoakTests.swift): it publishes straight to the emulator while the
Swift subscriber under test goes through a fault proxy.

Usage:
  soak_publish.py ORIGIN CHANNEL SECONDS INTERVAL_MS

Publishes {"n": 0}, {"n": 1}, ... on CHANNEL one after the other, pausing INTERVAL_MS between
publishes, until SECONDS have passed. Prints "SENT <n> <timetoken>" per acknowledged publish and
"DONE <count>" at the end. A publish the emulator does not acknowledge is a failure (exit 1): the
publisher's path has no faults, so every message counted here must reach the subscriber.
"""

import asyncio
import sys
import time

from pubnub.pubnub_asyncio import PubNubAsyncio

from interop_common import configuration, usage_unless


async def publish(origin, channel, seconds, interval):
    pubnub = PubNubAsyncio(configuration(origin, "demo", "demo", "soak-python"))
    deadline = time.monotonic() + seconds
    sent = 0
    try:
        while time.monotonic() < deadline:
            envelope = await pubnub.publish().channel(channel).message({"n": sent}).future()
            if envelope.status.is_error():
                print(f"FAILED {sent} {envelope.status.error_data}", flush=True)
                return 1
            print(f"SENT {sent} {envelope.result.timetoken}", flush=True)
            sent += 1
            await asyncio.sleep(interval)
        print(f"DONE {sent}", flush=True)
        return 0
    finally:
        await pubnub.stop()


if __name__ == "__main__":
    usage_unless(len(sys.argv) == 5, __doc__)
    sys.exit(asyncio.run(publish(sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]) / 1000)))
