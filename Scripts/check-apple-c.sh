#!/usr/bin/env bash
# Type-checks both halves of the C code that has a Linux and an Apple branch
# (Sources/CCurl/CCurlDriver.c: epoll and timerfd on Linux, kqueue on Apple platforms) with
# every warning an error. `swift build` on Linux only ever compiles the Linux branch; this
# compiles the Apple branch too, against the stand-in <sys/event.h> in Scripts/apple-c-stubs.
# It checks syntax and types only: nothing is linked or run, and it is no substitute for a build
# on an Apple platform.
set -euo pipefail
cd "$(dirname "$0")/.."
compiler="${CC:-cc}"
flags=(-fsyntax-only -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I Sources/CCurl/include)
for file in Sources/CCurl/CCurlDriver.c; do
    "$compiler" "${flags[@]}" "$file"
    echo "$file: the Linux branch compiles"
    "$compiler" "${flags[@]}" -U__linux__ -D__APPLE__ -I Scripts/apple-c-stubs "$file"
    echo "$file: the Apple branch compiles (against the stand-in <sys/event.h>)"
done
