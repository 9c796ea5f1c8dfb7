"""Mobile push registrations with PubNub's official Python SDK (pubnub==10.8.0).

Usage:
  push_interop.py selftest ORIGIN PUBLISH_KEY SUBSCRIBE_KEY
      Adds, lists, removes channels and removes devices for FCM, GCM and APNs2 (per topic and
      environment) against the emulator, and checks a refused call surfaces as an error.
      Exits non-zero on any mismatch.
  push_interop.py write ORIGIN PUBLISH_KEY SUBSCRIBE_KEY PREFIX
      Registers FCM device PREFIX-fcm on PREFIX.a and PREFIX.b and APNs2 device PREFIX0a (topic
      com.example.interop, production) on PREFIX.c; prints one JSON line with the channel lists.
  push_interop.py read ORIGIN PUBLISH_KEY SUBSCRIBE_KEY PREFIX
      Prints one JSON line with the channels the SDK lists for those two devices.

ORIGIN is what the emulator's banner prints (http://HOST:PORT).
"""

import asyncio
import json
import sys

from pubnub.enums import PNPushEnvironment, PNPushType
from pubnub.exceptions import PubNubException
from pubnub.pubnub_asyncio import PubNubAsyncio

from interop_common import check, configuration, failures, mode_and_rest

TOPIC = "com.example.interop"


def client(origin, publish_key, subscribe_key):
    return PubNubAsyncio(configuration(origin, publish_key, subscribe_key, "py-push"))


async def channels(pubnub, device, push_type, topic=None, environment=None):
    call = pubnub.list_push_channels().device_id(device).push_type(push_type)
    if topic:
        call = call.topic(topic)
    if environment:
        call = call.environment(environment)
    listed = await call.future()
    if listed.status.is_error():
        return None
    return sorted(listed.result.channels)


async def add(pubnub, device, push_type, names, topic=None, environment=None):
    call = pubnub.add_channels_to_push().channels(names).device_id(device).push_type(push_type)
    if topic:
        call = call.topic(topic)
    if environment:
        call = call.environment(environment)
    return await call.future()


async def selftest(origin, publish_key, subscribe_key):
    pubnub = client(origin, publish_key, subscribe_key)
    try:
        added = await add(pubnub, "py-fcm-1", PNPushType.FCM, ["news", "sport", "alerts"])
        check(not added.status.is_error(), "add_channels_to_push (FCM) is acknowledged")
        check(await channels(pubnub, "py-fcm-1", PNPushType.FCM) == ["alerts", "news", "sport"],
              "list_push_channels returns the added channels")
        check(await channels(pubnub, "py-fcm-1", PNPushType.GCM) == [],
              "the same token under GCM is another registration")
        removed = await pubnub.remove_channels_from_push().channels(["news"]).device_id("py-fcm-1") \
            .push_type(PNPushType.FCM).future()
        check(not removed.status.is_error(), "remove_channels_from_push is acknowledged")
        check(await channels(pubnub, "py-fcm-1", PNPushType.FCM) == ["alerts", "sport"],
              "a removed channel is no longer listed")

        await add(pubnub, "0a1b2c", PNPushType.APNS2, ["dev-room"], topic=TOPIC)
        await add(pubnub, "0a1b2c", PNPushType.APNS2, ["prod-room"], topic=TOPIC,
                  environment=PNPushEnvironment.PRODUCTION)
        check(await channels(pubnub, "0a1b2c", PNPushType.APNS2, topic=TOPIC) == ["dev-room"],
              "APNs2 defaults to development")
        check(await channels(pubnub, "0a1b2c", PNPushType.APNS2, topic=TOPIC,
                             environment=PNPushEnvironment.PRODUCTION) == ["prod-room"],
              "APNs2 registrations are per environment")
        gone = await pubnub.remove_device_from_push().device_id("0a1b2c").push_type(PNPushType.APNS2) \
            .topic(TOPIC).environment(PNPushEnvironment.PRODUCTION).future()
        check(not gone.status.is_error(), "remove_device_from_push (APNs2) is acknowledged")
        check(await channels(pubnub, "0a1b2c", PNPushType.APNS2, topic=TOPIC,
                             environment=PNPushEnvironment.PRODUCTION) == [],
              "a removed device has no channels")
        check(await channels(pubnub, "0a1b2c", PNPushType.APNS2, topic=TOPIC) == ["dev-room"],
              "removing one environment's device keeps the other")

        try:
            refused = await add(pubnub, "bad token", PNPushType.FCM, ["news"])
            refused_error = refused.status.is_error()
        except PubNubException:
            refused_error = True
        check(refused_error, "a token the emulator refuses is an error in the SDK")
    finally:
        await pubnub.stop()


async def write(origin, publish_key, subscribe_key, prefix):
    pubnub = client(origin, publish_key, subscribe_key)
    try:
        fcm = await add(pubnub, f"{prefix}-fcm", PNPushType.FCM, [f"{prefix}.a", f"{prefix}.b"])
        apns = await add(pubnub, f"{prefix}0a", PNPushType.APNS2, [f"{prefix}.c"], topic=TOPIC,
                         environment=PNPushEnvironment.PRODUCTION)
        check(not fcm.status.is_error() and not apns.status.is_error(), "registrations are acknowledged")
        print(json.dumps({"written": True}), flush=True)
    finally:
        await pubnub.stop()


async def read(origin, publish_key, subscribe_key, prefix):
    pubnub = client(origin, publish_key, subscribe_key)
    try:
        fcm = await channels(pubnub, f"{prefix}-fcm", PNPushType.FCM)
        apns = await channels(pubnub, f"{prefix}0a", PNPushType.APNS2, topic=TOPIC,
                              environment=PNPushEnvironment.PRODUCTION)
        print(json.dumps({"fcm": fcm, "apns2": apns}), flush=True)
    finally:
        await pubnub.stop()


if __name__ == "__main__":
    mode, rest = mode_and_rest(__doc__)
    if mode == "selftest":
        asyncio.run(selftest(*rest[:3]))
    elif mode == "write":
        asyncio.run(write(*rest[:4]))
    else:
        asyncio.run(read(*rest[:4]))
    sys.exit(1 if failures else 0)
