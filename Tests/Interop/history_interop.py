"""Message history and message actions with PubNub's official Python SDK (pubnub==10.8.0).

Usage:
  history_interop.py selftest ORIGIN PUBLISH_KEY SUBSCRIBE_KEY
      Publishes, reads history every way the SDK can (fetch_messages, history, message_counts,
      delete_messages), adds, lists and removes actions against the emulator. Exits non-zero on
      any mismatch.
  history_interop.py write ORIGIN PUBLISH_KEY SUBSCRIBE_KEY CHANNEL [CIPHER_KEY]
      Publishes three messages on CHANNEL (the first with meta, encrypted with CIPHER_KEY when
      given) and adds a reaction to the second; prints one JSON line with their timetokens.
  history_interop.py read ORIGIN PUBLISH_KEY SUBSCRIBE_KEY CHANNEL [CIPHER_KEY]
      Prints one JSON line with what fetch_messages (with actions and meta) and
      get_message_actions return for CHANNEL, decrypting with CIPHER_KEY when given.

ORIGIN is what the emulator's banner prints (http://HOST:PORT).
"""

import asyncio
import json
import sys

from pubnub.crypto import AesCbcCryptoModule
from pubnub.models.consumer.message_actions import PNMessageAction
from pubnub.pubnub_asyncio import PubNubAsyncio

from interop_common import check, configuration, failures, mode_and_rest, usage_unless


def client(origin, publish_key, subscribe_key, user_id, cipher_key=None):
    config = configuration(origin, publish_key, subscribe_key, user_id)
    if cipher_key:
        config.cipher_key = cipher_key
        config.use_random_initialization_vector = True
        config.crypto_module = AesCbcCryptoModule(config)
    return PubNubAsyncio(config)


def action(message_timetoken, type_, value):
    return PNMessageAction().create(type=type_, value=value, message_timetoken=str(message_timetoken))


async def selftest(origin, publish_key, subscribe_key):
    alice = client(origin, publish_key, subscribe_key, "py-alice")
    try:
        channel = "py.history"
        timetokens = []
        for n in range(5):
            sent = await alice.publish().channel(channel).message({"n": n}).meta({"i": n}).future()
            check(not sent.status.is_error(), f"publish {n} is acknowledged")
            timetokens.append(sent.result.timetoken)
        await alice.publish().channel(channel).message("not stored").should_store(False).future()
        await alice.signal().channel(channel).message("typing").future()

        fetched = await alice.fetch_messages().channels([channel]).include_meta(True) \
            .include_uuid(True).future()
        check(not fetched.status.is_error(), "fetch_messages succeeds")
        items = fetched.result.channels.get(channel, [])
        check([item.message for item in items] == [{"n": n} for n in range(5)],
              "fetch_messages returns what was stored, oldest first, without store=0 or signals")
        check([int(item.timetoken) for item in items] == timetokens, "fetched timetokens are the publish timetokens")
        check(items and items[0].meta == {"i": 0}, "meta comes back")
        check(items and getattr(items[0], "uuid", None) == "py-alice", "the publisher comes back")

        paged = await alice.fetch_messages().channels([channel]).maximum_per_channel(2) \
            .start(timetokens[3]).future()
        check([item.message for item in paged.result.channels.get(channel, [])] == [{"n": 1}, {"n": 2}],
              "start is exclusive and the page holds the newest before it")

        history = await alice.history().channel(channel).count(2).include_timetoken(True).future()
        check(not history.status.is_error(), "history (v2) succeeds")
        check([item.entry for item in history.result.messages] == [{"n": 3}, {"n": 4}], "history returns the newest")
        check([item.timetoken for item in history.result.messages] == timetokens[3:], "history includes timetokens")

        counts = await alice.message_counts().channel([channel]).channel_timetokens([timetokens[1]]).future()
        check(not counts.status.is_error() and counts.result.channels == {channel: 3},
              "message_counts counts after the timetoken")

        added = await alice.add_message_action().channel(channel) \
            .message_action(action(timetokens[4], "reaction", "smiley")).future()
        check(not added.status.is_error(), "add_message_action succeeds")
        check(added.result.uuid == "py-alice" and added.result.value == "smiley", "the added action comes back")
        check(int(added.result.message_timetoken) == timetokens[4], "the action names its message")
        second = await alice.add_message_action().channel(channel) \
            .message_action(action(timetokens[4], "receipt", "read")).future()
        duplicate = await alice.add_message_action().channel(channel) \
            .message_action(action(timetokens[4], "reaction", "smiley")).future()
        check(duplicate.status.is_error() and duplicate.status.status_code == 409, "a duplicate action is 409")

        listed = await alice.get_message_actions().channel(channel).future()
        check(not listed.status.is_error(), "get_message_actions succeeds")
        check([a.value for a in listed.result.actions] == ["smiley", "read"], "actions are listed oldest first")
        limited = await alice.get_message_actions().channel(channel).limit("1").future()
        check([a.value for a in limited.result.actions] == ["read"], "a limited page holds the newest")

        with_actions = await alice.fetch_messages().channels([channel]).include_message_actions(True).future()
        check(not with_actions.status.is_error(), "fetch_messages with actions succeeds")
        last = with_actions.result.channels.get(channel, [])[-1]
        check(list(last.actions.get("reaction", {}).keys()) == ["smiley"], "history with actions groups by type")

        removed = await alice.remove_message_action().channel(channel) \
            .message_timetoken(timetokens[4]).action_timetoken(second.result.action_timetoken).future()
        check(not removed.status.is_error(), "remove_message_action succeeds")
        listed = await alice.get_message_actions().channel(channel).future()
        check([a.value for a in listed.result.actions] == ["smiley"], "the removed action is gone")

        deleted = await alice.delete_messages().channel(channel).start(timetokens[1] - 1) \
            .end(timetokens[1]).future()
        check(not deleted.status.is_error(), "delete_messages succeeds")
        after = await alice.fetch_messages().channels([channel]).future()
        check([item.message["n"] for item in after.result.channels.get(channel, [])] == [0, 2, 3, 4],
              "delete_messages removed exactly the message in start (exclusive) .. end (inclusive)")
    finally:
        await alice.stop()
    return 1 if failures else 0


async def write(origin, publish_key, subscribe_key, channel, cipher_key=None):
    writer = client(origin, publish_key, subscribe_key, "py-writer", cipher_key)
    try:
        timetokens = []
        for n, meta in ((0, {"from": "python"}), (1, None), (2, None)):
            request = writer.publish().channel(channel).message({"py": n})
            if meta:
                request = request.meta(meta)
            sent = await request.future()
            if sent.status.is_error():
                print(json.dumps({"error": "publish failed"}), flush=True)
                return 1
            timetokens.append(str(sent.result.timetoken))
        added = await writer.add_message_action().channel(channel) \
            .message_action(action(timetokens[1], "reaction", "py-smile")).future()
        if added.status.is_error():
            print(json.dumps({"error": "add_message_action failed"}), flush=True)
            return 1
        print(json.dumps({"timetokens": timetokens, "actionTimetoken": str(added.result.action_timetoken)}),
              flush=True)
    finally:
        await writer.stop()
    return 0


async def read(origin, publish_key, subscribe_key, channel, cipher_key=None):
    reader = client(origin, publish_key, subscribe_key, "py-reader", cipher_key)
    try:
        request = reader.fetch_messages().channels([channel]).include_meta(True).include_message_actions(True)
        if cipher_key:
            request = request.decrypt_messages(True)
        fetched = await request.future()
        listed = await reader.get_message_actions().channel(channel).future()
        if fetched.status.is_error() or listed.status.is_error():
            print(json.dumps({"error": "read failed"}), flush=True)
            return 1
        messages = [
            {
                "message": item.message, "timetoken": str(item.timetoken), "meta": item.meta or None,
                "uuid": getattr(item, "uuid", None), "actions": item.actions or {},
            }
            for item in fetched.result.channels.get(channel, [])
        ]
        actions = [
            {"type": a.type, "value": a.value, "uuid": a.uuid, "messageTimetoken": str(a.message_timetoken),
             "actionTimetoken": str(a.action_timetoken)}
            for a in listed.result.actions
        ]
        print(json.dumps({"messages": messages, "actions": actions}), flush=True)
    finally:
        await reader.stop()
    return 0


if __name__ == "__main__":
    mode, rest = mode_and_rest(__doc__)
    if mode == "selftest":
        sys.exit(asyncio.run(selftest(*rest[:3])))
    usage_unless(len(rest) >= 4, __doc__)
    sys.exit(asyncio.run((write if mode == "write" else read)(*rest[:5])))
