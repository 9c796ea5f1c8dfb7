"""Access Manager interop: PubNub's official Python SDK (pubnub==10.8.0) as a server holding the
secret key (grant_token, revoke_token, signed requests) and as a client using the token, against
an emulator started with that secret key (access control on).

Usage: pam_interop.py ORIGIN PUBLISH_KEY SUBSCRIBE_KEY SECRET_KEY
Exits non-zero on any mismatch.
"""

import asyncio
import sys

from pubnub.exceptions import PubNubException
from pubnub.models.consumer.v3.channel import Channel
from pubnub.pubnub_asyncio import PubNubAsyncio

from interop_common import configuration, summary, usage_unless


from pubsub_interop import Recorder, check, failures


def client(origin, publish_key, subscribe_key, user_id, secret_key=None):
    config = configuration(origin, publish_key, subscribe_key, user_id)
    if secret_key:
        config.secret_key = secret_key
    return PubNubAsyncio(config)


async def refused(call):
    """The HTTP status and body of a refused call, or None when it succeeded."""
    try:
        envelope = await call.future()
    except PubNubException as error:
        return (error.get_status_code() if hasattr(error, "get_status_code") else error._status_code, str(error))
    if envelope.status.is_error():
        return (envelope.status.status_code, str(envelope.status.error_data.information))
    return None


async def main(origin, publish_key, subscribe_key, secret_key):
    server = client(origin, publish_key, subscribe_key, "py-server", secret_key)
    alice = client(origin, publish_key, subscribe_key, "py-alice")
    try:
        time = await alice.time().future()
        check(not time.status.is_error(), "time needs no token")

        denied = await refused(alice.publish().channel("pam.room").message("no token"))
        check(denied is not None and denied[0] == 403, "a publish without a token is refused with 403")

        granted = await server.grant_token() \
            .channels([Channel.id("pam.room").read().write(), Channel.pattern("^pam\\.read-.*$").read()]) \
            .authorized_uuid("py-alice").ttl(15).meta({"issuer": "interop"}).future()
        check(not granted.status.is_error(), "grant_token is answered")
        token = granted.result.token
        check(isinstance(token, str) and len(token) % 4 == 0,
              "the token keeps its base64 padding")

        parsed = server.parse_token(token)
        check(parsed["version"] == 2 and parsed["ttl"] == 15, "parse_token reads version and ttl")
        check(parsed["authorized_uuid"] == "py-alice", "parse_token reads the authorized uuid")
        room = parsed["resources"].get("channels", {}).get("pam.room", {})
        check(room.get("read") is True and room.get("write") is True and room.get("manage") is False,
              "parse_token reads the channel bits")
        check("^pam\\.read-.*$" in parsed["patterns"].get("channels", {}), "parse_token reads the pattern")
        check(parsed["meta"] == {"issuer": "interop"}, "parse_token reads meta")

        alice.set_token(token)
        recorder = Recorder()
        alice.add_listener(recorder)
        alice.subscribe().channels(["pam.room", "pam.read-1"]).execute()
        check(await recorder.wait_for("connected") is not None, "a granted subscribe connects")

        sent = await alice.publish().channel("pam.room").message({"granted": True}).future()
        check(not sent.status.is_error(), "a granted publish is acknowledged")
        got = await recorder.wait_for("message", lambda m: m.message == {"granted": True})
        check(got is not None and got.channel == "pam.room", "a granted publish is delivered")

        read_only = await refused(alice.publish().channel("pam.read-1").message("x"))
        check(read_only is not None and read_only[0] == 403, "publish on a read-only pattern is refused")

        signed = await server.publish().channel("pam.room").message({"from": "server"}).future()
        check(not signed.status.is_error(), "a publish signed with the secret key needs no token")
        from_server = await recorder.wait_for("message", lambda m: m.message == {"from": "server"})
        check(from_server is not None, "the signed publish is delivered")

        posted = await server.publish().channel("pam.room").message({"post": "server"}).use_post(True).future()
        check(not posted.status.is_error(), "a POST publish signed in the legacy form is accepted")

        alice.unsubscribe_all()
        revoked = await server.revoke_token(token).future()
        check(not revoked.status.is_error() and revoked.result.status == 200, "revoke_token is answered")

        after = await refused(alice.publish().channel("pam.room").message("after revoke"))
        check(after is not None and after[0] == 403 and "Token is revoked." in after[1],
              "a revoked token is refused with 'Token is revoked.'")

        wrong = client(origin, publish_key, subscribe_key, "py-wrong", "not-the-secret")
        bad = await refused(wrong.grant_token().channels([Channel.id("x").read()]).ttl(5))
        check(bad is not None and bad[0] == 403, "a grant signed with the wrong secret key is refused")
        await wrong.stop()
    finally:
        await alice.stop()
        await server.stop()

    return summary("access manager interop")


if __name__ == "__main__":
    usage_unless(len(sys.argv) == 5, __doc__)
    sys.exit(asyncio.run(main(*sys.argv[1:])))
