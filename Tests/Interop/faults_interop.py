"""PubNub's official Python SDK (pubnub==10.8.0) meeting faults that are queued over the
emulator's admin HTTP API (/_emulator/v1/faults), with no Swift involved on the client side.
Driven by Tests/EmulatorAdminTests/PythonFaultTests.swift against an emulator the Swift test runs
in process.

Usage:
  faults_interop.py ORIGIN    e.g. http://127.0.0.1:8090

For each case: queue one fault with the standard library's HTTP client, make the SDK call (it must
fail the way the fault says), make it again (it must succeed: the fault's count ran out), and
print one JSON line {"case", "first", "second"}. Finally print {"remaining": [...]} from the
fault list. Exits non-zero when an outcome differs from the expected one.
"""

import asyncio
import json
import sys
import urllib.request

from pubnub.pubnub_asyncio import PubNubAsyncio

from interop_common import configuration, usage_unless


def admin(origin, method, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(origin + "/_emulator/v1/faults", data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def outcome(envelope):
    """What the SDK reported: {"error": bool, "status": int or null}."""
    status = envelope.status
    code = getattr(status, "status_code", None)
    return {"error": bool(status.is_error()), "status": code}


async def run(origin):
    pubnub = PubNubAsyncio(configuration(origin, "demo", "demo", "py-faults"))
    calls = {
        "publish": lambda: pubnub.publish().channel("faults.py").message({"n": 1}).future(),
        "here_now": lambda: pubnub.here_now().channels(["faults.py"]).future(),
        "time": lambda: pubnub.time().future(),
    }
    cases = [
        ("publish", {"kind": "status", "status": 500, "family": "publish", "channel": "faults.py"},
         lambda o: o["error"] and o["status"] == 500),
        ("here_now", {"kind": "status", "status": 503, "family": "presence"},
         lambda o: o["error"] and o["status"] == 503),
        ("time", {"kind": "reset", "family": "time"},
         lambda o: o["error"]),
    ]
    failures = 0
    try:
        for name, fault, failed_as_expected in cases:
            status, added = admin(origin, "POST", fault)
            if status != 201 or added.get("remaining") != 1:
                print(json.dumps({"case": name, "added": added}), flush=True)
                failures += 1
                continue
            first = outcome(await calls[name]())
            second = outcome(await calls[name]())
            print(json.dumps({"case": name, "first": first, "second": second}), flush=True)
            if not failed_as_expected(first) or second["error"]:
                failures += 1
        _, listed = admin(origin, "GET")
        print(json.dumps({"remaining": listed["faults"]}), flush=True)
        if listed["faults"]:
            failures += 1
    finally:
        await pubnub.stop()
    return 1 if failures else 0


if __name__ == "__main__":
    usage_unless(len(sys.argv) == 2, __doc__)
    sys.exit(asyncio.run(run(sys.argv[1])))
