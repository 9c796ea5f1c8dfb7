#!/usr/bin/env bash
# The emulator's HTTP server against nginx (issue 22, point 5): requests per second that wrk gets
# from each at 16 and 100 keep-alive connections, and the ratio emulator / nginx. A third server,
# the bare HTTPServer answering every request at once with the same bytes (the emulator binary run
# as `datasync-emulator --bare-http-server PORT FILE`), tells the server's own cost from the
# emulator's: its ratio to nginx is the last column.
#
#   Scripts/server-throughput.sh            # 5 s per measurement, 3 rounds
#   Scripts/server-throughput.sh 10 5       # 10 s per measurement, 5 rounds
#
# The emulator (release build) holds one user and answers GET for it; nginx serves a static file
# holding exactly the emulator's answer body, so both send the same number of body bytes.
# The emulator measured for the ratio runs with `--no-request-lines`, which turns off the line it
# prints per request by default, because nginx runs with `access_log off` and so logs nothing
# either; its in-memory request log (the console's) stays on. A second emulator with its default
# request lines on is measured too ("with lines", and its ratio to nginx): that is what a user
# running `datasync-emulator` without the flag gets. Each server is pinned to CPU 0 with taskset
# and wrk (one thread) to CPU 1; the servers take turns within each round, so a ratio compares
# figures taken seconds apart. The table gives the median of the rounds. wrk and nginx come from
# Debian's packages, installed with apt-get when missing. EMULATOR_PORT, NGINX_PORT, BARE_PORT and
# LINES_PORT (default 18631, 18632, 18633, 18634) pick the loopback ports; EMULATOR_BIN names an
# emulator binary to use instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-5}"
rounds="${2:-3}"
emulator_port="${EMULATOR_PORT:-18631}"
nginx_port="${NGINX_PORT:-18632}"
bare_port="${BARE_PORT:-18633}"
lines_port="${LINES_PORT:-18634}"
server_cpu=0
client_cpu=1

missing=()
command -v wrk > /dev/null || missing+=(wrk)
command -v nginx > /dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} from Debian's packages" >&2
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}" > /dev/null \
        || { "${sudo_cmd[@]}" apt-get update > /dev/null && "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}" > /dev/null; }
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

if [ -n "${EMULATOR_BIN:-}" ]; then
    emulator_bin="$EMULATOR_BIN"
else
    swift build -c release --product datasync-emulator > /dev/null
    emulator_bin="$(swift build -c release --show-bin-path)/datasync-emulator"
fi

work="$(mktemp -d)"
emulator_pid=""
nginx_pid=""
bare_pid=""
lines_pid=""
cleanup() {
    [ -n "$emulator_pid" ] && kill "$emulator_pid" 2> /dev/null || true
    [ -n "$bare_pid" ] && kill "$bare_pid" 2> /dev/null || true
    [ -n "$lines_pid" ] && kill "$lines_pid" 2> /dev/null || true
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2> /dev/null || true
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/seed.json" << 'EOF'
{"keysets": {"bench": {"users": [{"id": "u1", "status": "active",
  "payload": {"name": "Bench User", "email": "bench.user@example.test", "team": "throughput"}}]}}}
EOF
# No request lines: nginx below logs nothing either (`access_log off`).
taskset -c "$server_cpu" "$emulator_bin" --host 127.0.0.1 --port "$emulator_port" --seed "$work/seed.json" \
    --no-request-lines > "$work/emulator.log" 2>&1 &
emulator_pid=$!
emulator_url="http://127.0.0.1:$emulator_port/v1/datasync/subkeys/bench/users/u1"
mkdir -p "$work/www"
# nginx's worker may run as another user (nobody, when started as root): it must read the file.
chmod 755 "$work" "$work/www"
for _ in $(seq 1 100); do
    curl -sf -o "$work/www/user.json" "$emulator_url" && break
    sleep 0.1
done
[ -s "$work/www/user.json" ] || { echo "the emulator did not answer; its log:" >&2; cat "$work/emulator.log" >&2; exit 1; }
chmod 644 "$work/www/user.json"
body_bytes=$(wc -c < "$work/www/user.json")

# Waits for $1 to answer, then checks it serves exactly body_bytes; $2 names the server in the
# error, the rest are its log files, printed when it does not.
expect_body() {
    local url="$1" name="$2"
    shift 2
    for _ in $(seq 1 100); do
        curl -sf -o /dev/null "$url" && break
        sleep 0.1
    done
    local bytes
    bytes=$(curl -sf "$url" | wc -c || true)
    if [ "$bytes" -ne "$body_bytes" ]; then
        echo "$name serves $bytes bytes, not $body_bytes; its log:" >&2
        cat "$@" >&2 2> /dev/null || true
        exit 1
    fi
}

taskset -c "$server_cpu" "$emulator_bin" --bare-http-server "$bare_port" "$work/www/user.json" \
    > "$work/bare.log" 2>&1 &
bare_pid=$!
bare_url="http://127.0.0.1:$bare_port/v1/datasync/subkeys/bench/users/u1"
expect_body "$bare_url" "the bare server" "$work/bare.log"

# The emulator as users run it by default: one line per request, written to a file here.
taskset -c "$server_cpu" "$emulator_bin" --host 127.0.0.1 --port "$lines_port" --seed "$work/seed.json" \
    > "$work/lines.log" 2>&1 &
lines_pid=$!
lines_url="http://127.0.0.1:$lines_port/v1/datasync/subkeys/bench/users/u1"
expect_body "$lines_url" "the emulator with request lines" "$work/lines.log"

cat > "$work/nginx.conf" << EOF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    default_type application/json;
    client_body_temp_path $work/tmp;
    proxy_temp_path $work/tmp;
    fastcgi_temp_path $work/tmp;
    uwsgi_temp_path $work/tmp;
    scgi_temp_path $work/tmp;
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/www;
    }
}
EOF
mkdir -p "$work/tmp"
taskset -c "$server_cpu" "$nginx_bin" -p "$work" -c "$work/nginx.conf" 2> "$work/nginx-start.log" &
nginx_pid=$!
nginx_url="http://127.0.0.1:$nginx_port/user.json"
expect_body "$nginx_url" nginx "$work/nginx-start.log" "$work/nginx-error.log"

# Requests per second wrk measured against $1 with $2 connections.
measure() {
    taskset -c "$client_cpu" wrk -t1 -c"$2" -d"${duration}s" "$1" | awk '/^Requests\/sec:/ { print $2 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "body: $body_bytes bytes; server on CPU $server_cpu, wrk (1 thread) on CPU $client_cpu; ${duration} s x $rounds rounds"
echo "emulator: --no-request-lines (nginx: access_log off); with lines: the emulator's default request lines on"
printf '%-12s %12s %12s %12s %12s %8s   %-18s %14s %s\n' connections emulator "with lines" "bare server" nginx \
    ratio "ratios per round" "lines / nginx" "bare / nginx"
for connections in 16 100; do
    : > "$work/emulator.txt"
    : > "$work/bare.txt"
    : > "$work/nginx.txt"
    : > "$work/ratio.txt"
    : > "$work/bare-ratio.txt"
    : > "$work/lines.txt"
    : > "$work/lines-ratio.txt"
    for _ in $(seq 1 "$rounds"); do
        ours=$(measure "$emulator_url" "$connections")
        lines=$(measure "$lines_url" "$connections")
        bare=$(measure "$bare_url" "$connections")
        theirs=$(measure "$nginx_url" "$connections")
        echo "$ours" >> "$work/emulator.txt"
        echo "$bare" >> "$work/bare.txt"
        echo "$lines" >> "$work/lines.txt"
        echo "$theirs" >> "$work/nginx.txt"
        awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f\n", a / b }' >> "$work/ratio.txt"
        awk -v a="$bare" -v b="$theirs" 'BEGIN { printf "%.2f\n", a / b }' >> "$work/bare-ratio.txt"
        awk -v a="$lines" -v b="$theirs" 'BEGIN { printf "%.2f\n", a / b }' >> "$work/lines-ratio.txt"
    done
    printf '%-12s %12s %12s %12s %12s %8s   %-18s %14s %s\n' "$connections" "$(median < "$work/emulator.txt")" \
        "$(median < "$work/lines.txt")" "$(median < "$work/bare.txt")" "$(median < "$work/nginx.txt")" \
        "$(median < "$work/ratio.txt")x" "$(paste -sd' ' "$work/ratio.txt")" "$(median < "$work/lines-ratio.txt")x" \
        "$(median < "$work/bare-ratio.txt")x"
done
