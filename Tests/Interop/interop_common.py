"""What the interop scripts share: a client configuration for the emulator and a list of checks.

The scripts are run by path, so Python finds this module next to them.
"""

import sys

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


def summary(what):
    """Prints how the checks went and returns the script's exit status (1 when one failed)."""
    if failures:
        print(f"{len(failures)} {what} check(s) failed", flush=True)
        return 1
    print(f"python {what}: all checks passed", flush=True)
    return 0


def usage_unless(condition, doc):
    """Prints the script's usage DOC to standard error and exits with 2 unless CONDITION holds."""
    if not condition:
        print(doc, file=sys.stderr)
        sys.exit(2)


def mode_and_rest(doc, modes=("selftest", "write", "read")):
    """The MODE and the other arguments of a `SCRIPT MODE ORIGIN ...` call (usage and exit 2 when off)."""
    usage_unless(len(sys.argv) >= 5 and sys.argv[1] in modes, doc)
    return sys.argv[1], sys.argv[2:]
