#!/usr/bin/env bash
# Interop test: PubNub's official Python SDK (pubnub==10.8.0, in .build/pyvenv) against the
# emulator on ephemeral ports: the pub/sub, history, files and push tests against an emulator with
# access control off, then the Access Manager test (grant, revoke, signed and granted publish/subscribe) against one
# started with a secret key. Needs a built tree (swift build); exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.build/pyvenv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("pubnub") != "10.8.0")' 2>/dev/null; then
    "$venv/bin/pip" install --quiet pubnub==10.8.0
fi

bin=$(swift build --show-bin-path)
pids=()
logs=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -f "${logs[@]}"
}
trap cleanup EXIT

# start_emulator LOG ARGS...: starts the emulator, waits for its banner.
start_emulator() {
    local log=$1
    shift
    "$bin/datasync-emulator" --port 0 "$@" >"$log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 1 300); do
        grep -q '^access control: ' "$log" && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "the emulator exited early" >&2; exit 1; }
        sleep 0.1
    done
    cat "$log"
    echo "the emulator printed no banner" >&2
    exit 1
}

banner() { sed -n "s/^$2: //p" "$1" | head -n 1; }

# run_test LOG SCRIPT ARGS...: runs one Python driver, printing the emulator log on failure.
status=0
run_test() {
    local log=$1
    shift
    local result=0
    "$venv/bin/python" "$@" || result=$?
    if [ "$result" -ne 0 ]; then
        echo "== emulator log" >&2
        cat "$log" >&2
        status=$result
    fi
}

open_log=$(mktemp)
logs+=("$open_log")
start_emulator "$open_log" --publish-key pub-c-interop --subscribe-key sub-c-interop
origin=$(banner "$open_log" origin)
if [ -z "$origin" ] || [ "$(banner "$open_log" 'access control')" != off ]; then
    cat "$open_log"
    echo "could not read the emulator's banner (or access control is on)" >&2
    exit 1
fi
run_test "$open_log" Tests/Interop/pubsub_interop.py "$origin" "$(banner "$open_log" 'publish key')" \
    "$(banner "$open_log" 'subscribe key')"
run_test "$open_log" Tests/Interop/history_interop.py selftest "$origin" "$(banner "$open_log" 'publish key')" \
    "$(banner "$open_log" 'subscribe key')"
run_test "$open_log" Tests/Interop/files_interop.py selftest "$origin" "$(banner "$open_log" 'publish key')" \
    "$(banner "$open_log" 'subscribe key')"
run_test "$open_log" Tests/Interop/push_interop.py selftest "$origin" "$(banner "$open_log" 'publish key')" \
    "$(banner "$open_log" 'subscribe key')"

pam_log=$(mktemp)
logs+=("$pam_log")
start_emulator "$pam_log" --publish-key pub-c-pam --subscribe-key sub-c-pam --secret-key sec-c-pam
pam_origin=$(banner "$pam_log" origin)
if [ -z "$pam_origin" ] || [ "$(banner "$pam_log" 'access control')" != on ]; then
    cat "$pam_log"
    echo "could not read the protected emulator's banner (or access control is off)" >&2
    exit 1
fi
run_test "$pam_log" Tests/Interop/pam_interop.py "$pam_origin" "$(banner "$pam_log" 'publish key')" \
    "$(banner "$pam_log" 'subscribe key')" "$(banner "$pam_log" 'secret key')"
exit "$status"
