#!/usr/bin/env bash
# Builds one libFuzzer harness (an executable target named fuzz-<area>) and runs it.
#   Scripts/fuzz.sh json 60          # fuzz-json for 60 seconds
# Extra arguments after the seconds go to libFuzzer. The corpus lives in .build/fuzz-corpus/<area>,
# seeded from Fuzz/corpus/<area> when that exists.
set -euo pipefail
cd "$(dirname "$0")/.."
area="${1:?usage: Scripts/fuzz.sh AREA [SECONDS] [libFuzzer args...]}"
seconds="${2:-60}"
shift $(( $# >= 2 ? 2 : 1 ))
# gold cannot link Swift code built with -sanitize=fuzzer, so the link goes through lld.
swift build -c release --scratch-path .build/fuzz --product "fuzz-$area" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
    -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
corpus=".build/fuzz-corpus/$area"
mkdir -p "$corpus"
if [ -d "Fuzz/corpus/$area" ]; then cp -n "Fuzz/corpus/$area"/* "$corpus"/ 2>/dev/null || true; fi
exec ".build/fuzz/release/fuzz-$area" -max_total_time="$seconds" "$@" "$corpus"
