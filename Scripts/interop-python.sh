#!/usr/bin/env bash
# Interop test: PubNub's official Python SDK (pubnub==10.8.0, in .build/pyvenv) against the
# emulator on an ephemeral port. Needs a built tree (swift build); exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build/pyvenv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("pubnub") != "10.8.0")' 2>/dev/null; then
    "$venv/bin/pip" install --quiet pubnub==10.8.0
fi

log=$(mktemp)
bin=$(swift build --show-bin-path)
"$bin/datasync-emulator" --port 0 --publish-key pub-c-interop --subscribe-key sub-c-interop >"$log" 2>&1 &
emulator=$!
cleanup() {
    kill "$emulator" 2>/dev/null || true
    wait "$emulator" 2>/dev/null || true
    rm -f "$log"
}
trap cleanup EXIT

for _ in $(seq 1 300); do
    grep -q '^subscribe key: ' "$log" && break
    kill -0 "$emulator" 2>/dev/null || { cat "$log"; echo "the emulator exited early" >&2; exit 1; }
    sleep 0.1
done
origin=$(sed -n 's/^origin: //p' "$log" | head -n 1)
publish_key=$(sed -n 's/^publish key: //p' "$log" | head -n 1)
subscribe_key=$(sed -n 's/^subscribe key: //p' "$log" | head -n 1)
if [ -z "$origin" ] || [ -z "$subscribe_key" ]; then
    cat "$log"
    echo "could not read the emulator's banner" >&2
    exit 1
fi

status=0
"$venv/bin/python" Tests/Interop/pubsub_interop.py "$origin" "$publish_key" "$subscribe_key" || status=$?
if [ "$status" -ne 0 ]; then
    echo "== emulator log" >&2
    cat "$log" >&2
fi
exit "$status"
