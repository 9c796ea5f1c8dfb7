#!/usr/bin/env bash
# Builds and runs Tests/Fixtures/ModuleAliases/App: an app that depends on this repository and on a
# stand-in package with modules named `Auth` and `Realtime` (as supabase-swift has), and renames
# ours with SwiftPM's moduleAliases. Fails when the aliases stop working, for example when one of
# our modules gains a name the alias does not cover. The fixture builds into its own .build.
set -euo pipefail
cd "$(dirname "$0")/../Tests/Fixtures/ModuleAliases/App"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift build -Xswiftc -warnings-as-errors >"$log" 2>&1; then
    cat "$log"
    echo "FAIL: the module-alias fixture does not build" >&2
    exit 1
fi
grep -E "Build" "$log" || true
output=$(swift run --skip-build alias-app)
echo "$output"
grep -q "module aliases work" <<<"$output" || { echo "FAIL: the module-alias fixture did not run to the end" >&2; exit 1; }
