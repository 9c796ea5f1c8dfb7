#!/usr/bin/env bash
# Builds the DocC archive of every library module with the toolchain's own docc (no plugin
# package): symbol graphs from `swift package dump-symbol-graph`, then `docc convert` per module.
# Fails when docc reports a warning (a broken link, an undocumented parameter), unless
# DOCS_ALLOW_WARNINGS=1. Archives land in .build/docs/<Module>.doccarchive.
#
#   Scripts/docs.sh              # every library module
#   Scripts/docs.sh DataSync     # only the named modules
set -euo pipefail
cd "$(dirname "$0")/.."

modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
    modules=(PubNubBase JSONCore JSONPatch FilterExpression Transport Auth DataSyncModels PubNubCore DataSync Realtime
        Messaging MessagePersistence FileSharing MobilePush PubNubCrypto EmulatorHTTP DataSyncEmulator DataSyncTestSupport
        DataSyncLive)
fi

docc=$(command -v docc || true)
if [ -z "$docc" ]; then
    docc="$(dirname "$(command -v swift)")/docc"
fi
[ -x "$docc" ] || { echo "docc not found next to swift" >&2; exit 2; }

# Extension block symbols give members added to another module's type (`pubnub.dataSync`) a page
# under "Extended Modules", so catalogs can link them as ``PubNubCore/PubNub/dataSync``.
# The command also tries the package's test-aggregate modules and exits non-zero when the tests
# have not been built; what matters is that every requested module's graph exists (checked below).
swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols >/dev/null 2>&1 || true
graphs="$(swift build --show-bin-path)/../symbolgraph"
out=.build/docs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

total=0
for module in "${modules[@]}"; do
    [ -f "$graphs/$module.symbols.json" ] || { echo "no symbol graph for $module (does it build?)" >&2; exit 1; }
    mkdir -p "$work/$module/graphs"
    cp "$graphs/$module.symbols.json" "$work/$module/graphs/"
    cp "$graphs/$module@"*.symbols.json "$work/$module/graphs/" 2>/dev/null || true
    catalog="Sources/$module/$module.docc"
    args=()
    [ -d "$catalog" ] && args+=("$catalog")
    log="$work/$module/log"
    "$docc" convert "${args[@]}" --additional-symbol-graph-dir "$work/$module/graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.datasync-swift.$module" \
        --output-path "$out/$module.doccarchive" >"$log" 2>&1 || { cat "$log"; echo "docc failed for $module" >&2; exit 1; }
    count=$(grep -c "warning:" "$log" || true)
    total=$((total + count))
    printf '%-22s %4d warning(s)%s\n' "$module" "$count" "$([ -d "$catalog" ] || echo '  (no catalog)')"
    if [ "$count" -gt 0 ] && [ "${DOCS_VERBOSE:-0}" = 1 ]; then grep "warning:" "$log"; fi
done

echo "archives in $out; $total warning(s) in all"
if [ "$total" -gt 0 ] && [ "${DOCS_ALLOW_WARNINGS:-0}" != 1 ]; then
    echo "docc reported warnings (DOCS_VERBOSE=1 lists them)" >&2
    exit 1
fi
