"""Drives the emulator with PubNub's official Python SDK (pubnub==10.8.0).

Usage: pubsub_interop.py ORIGIN PUBLISH_KEY SUBSCRIBE_KEY
ORIGIN is what the emulator's banner prints (http://HOST:PORT). Exits non-zero on any mismatch.
"""

import asyncio
import sys

from pubnub.callbacks import SubscribeCallback
from pubnub.enums import PNStatusCategory
from pubnub.pubnub_asyncio import PubNubAsyncio

from interop_common import check, configuration, failures, summary, usage_unless


WAIT = 15.0
def client(origin, publish_key, subscribe_key, user_id, compress=False):
    config = configuration(origin, publish_key, subscribe_key, user_id)
    config.should_compress = compress
    return PubNubAsyncio(config)


class Recorder(SubscribeCallback):
    """Keeps every event and lets the driver wait for one that matches."""

    def __init__(self):
        self.events = []
        self.changed = asyncio.Event()

    def _add(self, kind, value):
        self.events.append((kind, value))
        self.changed.set()

    def status(self, pubnub, status):
        if status.category == PNStatusCategory.PNConnectedCategory:
            self._add("connected", status)

    def message(self, pubnub, message):
        self._add("message", message)

    def signal(self, pubnub, signal):
        self._add("signal", signal)

    def presence(self, pubnub, presence):
        self._add("presence", presence)

    async def wait_for(self, kind, predicate=lambda value: True, timeout=WAIT):
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for event_kind, value in self.events:
                if event_kind == kind and predicate(value):
                    return value
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return None
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except asyncio.TimeoutError:
                return None


async def main(origin, publish_key, subscribe_key):
    alice = client(origin, publish_key, subscribe_key, "py-alice")
    bob = client(origin, publish_key, subscribe_key, "py-bob", compress=True)
    try:
        time = await alice.time().future()
        check(not time.status.is_error() and len(str(int(time.result))) == 17, "time is a 17-digit timetoken")

        added = await alice.add_channel_to_channel_group().channels(["py.grouped", "py.other"]) \
            .channel_group("py-group").future()
        check(not added.status.is_error(), "add channels to a group")
        removed = await alice.remove_channel_from_channel_group().channels(["py.other"]) \
            .channel_group("py-group").future()
        check(not removed.status.is_error(), "remove a channel from a group")
        listed = await alice.list_channels_in_channel_group().channel_group("py-group").future()
        check(not listed.status.is_error() and listed.result.channels == ["py.grouped"], "list a group's channels")

        recorder = Recorder()
        alice.add_listener(recorder)
        alice.subscribe().channels(["py.room", "py.wild.*"]).channel_groups(["py-group"]).with_presence().execute()
        check(await recorder.wait_for("connected") is not None, "subscribe connects")

        sent = await bob.publish().channel("py.room").message({"hello": "wörld", "n": [1, 2]}) \
            .meta({"k": "v"}).future()
        check(not sent.status.is_error() and sent.result.timetoken > 0, "publish (GET) is acknowledged")
        message = await recorder.wait_for("message", lambda m: m.channel == "py.room" and m.message.get("hello"))
        check(message is not None and message.message == {"hello": "wörld", "n": [1, 2]}, "publish is delivered")
        check(message is not None and message.publisher == "py-bob", "publisher is the sender's uuid")
        check(message is not None and message.user_metadata == {"k": "v"}, "meta arrives as user_metadata")
        check(message is not None and message.timetoken == sent.result.timetoken, "delivered timetoken matches")

        posted = await bob.publish().channel("py.room").message({"post": True}).use_post(True).future()
        check(not posted.status.is_error(), "POST publish with zlib body labelled gzip is acknowledged")
        check(await recorder.wait_for("message", lambda m: m.message == {"post": True}) is not None,
              "POST publish is delivered")

        signal = await bob.signal().channel("py.room").message("typing").future()
        check(not signal.status.is_error(), "signal is acknowledged")
        got_signal = await recorder.wait_for("signal", lambda s: s.message == "typing")
        check(got_signal is not None and got_signal.channel == "py.room", "signal is delivered as a signal")

        fired = await bob.fire().channel("py.room").message("fired").future()
        check(not fired.status.is_error() and fired.result.timetoken > 0, "fire is acknowledged")
        await bob.publish().channel("py.room").message("after-fire").future()
        check(await recorder.wait_for("message", lambda m: m.message == "after-fire") is not None,
              "message after fire is delivered")
        check(not any(kind == "message" and value.message == "fired" for kind, value in recorder.events),
              "fire is never delivered")

        await bob.publish().channel("py.wild.x").message("wild").future()
        wild = await recorder.wait_for("message", lambda m: m.message == "wild")
        check(wild is not None and wild.channel == "py.wild.x" and wild.subscription == "py.wild.*",
              "wildcard delivery names the pattern")

        await bob.publish().channel("py.grouped").message("grouped").future()
        grouped = await recorder.wait_for("message", lambda m: m.message == "grouped")
        check(grouped is not None and grouped.channel == "py.grouped" and grouped.subscription == "py-group",
              "group delivery names the group")

        big = await bob.publish().channel("py.room").message("x" * 40000).use_post(True).future()
        check(big.status.is_error(), "a message over 32 KiB is refused")

        bob_recorder = Recorder()
        bob.add_listener(bob_recorder)
        bob.subscribe().channels(["py.room"]).execute()
        check(await bob_recorder.wait_for("connected") is not None, "second client connects")
        join = await recorder.wait_for("presence", lambda p: p.event == "join" and p.uuid == "py-bob")
        check(join is not None and join.channel == "py.room" and isinstance(join.occupancy, int),
              "presence join is delivered")

        here = await alice.here_now().channels(["py.room"]).include_uuids(True).future()
        check(not here.status.is_error(), "here_now answers")
        if not here.status.is_error():
            uuids = sorted(o.uuid for c in here.result.channels for o in c.occupants)
            check(here.result.total_occupancy == 2 and uuids == ["py-alice", "py-bob"], "here_now lists both")

        where = await alice.where_now().uuid("py-bob").future()
        check(not where.status.is_error() and "py.room" in where.result.channels, "where_now finds the channel")

        state = await alice.set_state().channels(["py.room"]).state({"mood": "ok"}).future()
        check(not state.status.is_error(), "set_state is acknowledged")
        change = await recorder.wait_for("presence", lambda p: p.event == "state-change" and p.uuid == "py-alice")
        check(change is not None and change.state == {"mood": "ok"}, "state-change is delivered")

        bob.unsubscribe_all()
        leave = await bob.leave().channels(["py.room"]).future() if hasattr(bob, "leave") else None
        if leave is None:
            from pubnub.endpoints.presence.leave import Leave
            leave = await Leave(bob).channels(["py.room"]).future()
        check(not leave.status.is_error(), "leave is acknowledged")
        left = await recorder.wait_for("presence", lambda p: p.event == "leave" and p.uuid == "py-bob")
        check(left is not None, "presence leave is delivered")

        alice.unsubscribe_all()
        deleted = await alice.remove_channel_group().channel_group("py-group").future()
        check(not deleted.status.is_error(), "delete a group")
    finally:
        await alice.stop()
        await bob.stop()

    return summary("interop")


if __name__ == "__main__":
    usage_unless(len(sys.argv) == 4, __doc__)
    sys.exit(asyncio.run(main(*sys.argv[1:])))
