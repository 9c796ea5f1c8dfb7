"""What the interop scripts share: a client configuration for the emulator and a list of checks.

The scripts are run by path, so Python finds this module next to them.
"""

from pubnub.pnconfiguration import PNConfiguration

failures = []


def check(condition, what):
    """Prints one `ok`/`FAIL` line and remembers the failures (the script's exit status)."""
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def configuration(origin, publish_key, subscribe_key, user_id):
    """A plain-HTTP configuration for the emulator at ORIGIN (http://HOST:PORT, as its banner says)."""
    config = PNConfiguration()
    config.publish_key = publish_key
    config.subscribe_key = subscribe_key
    config.user_id = user_id
    config.origin = origin.split("://", 1)[-1]
    config.ssl = False
    return config
