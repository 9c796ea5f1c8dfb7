#!/usr/bin/env bash
# Checks the DataSync codegen plugins end to end with the fixture consumer package in
# Tests/Fixtures/CodegenConsumer (it depends on this repository by relative path):
#
#   1. the fixture builds: DataSyncCodegenPlugin generates types from Catalog.datasync.json;
#   2. its executable validates the generated filters with FilterValidator against that file and
#      runs typed list calls against an emulator started in process with the same definitions;
#   3. a definition with an error fails the build with the file and the JSON pointer;
#   4. filters the tiers do not permit (a `none` property, a `simple` one in `filter`, an
#      undeclared one) do not compile;
#   5. the command plugin validates the definition files and prints what would be generated.
#
# The fixture builds into its own .build (Tests/Fixtures/CodegenConsumer/.build): a second run
# rebuilds nothing. On a fresh clone the first build compiles the modules the fixture uses once
# more (about as long as `swift build` of those modules; see Plugins/README.md).
set -euo pipefail
cd "$(dirname "$0")/../Tests/Fixtures/CodegenConsumer"

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

echo "== 1. build the fixture (plugin generates Catalog's types)"
if ! swift build --product codegen-consumer -Xswiftc -warnings-as-errors >"$log/build" 2>&1; then
    cat "$log/build"
    echo "FAIL: the fixture does not build" >&2
    exit 1
fi
grep -E "warning:|Generating|Build" "$log/build" || true
generated=$(find .build/plugins/outputs -name 'Catalog.datasync.swift' -path '*Catalog*' | head -1)
[ -n "$generated" ] && echo "generated: $generated ($(wc -l <"$generated") lines)" || fail "no generated Catalog.datasync.swift"

echo "== 2. run it (FilterValidator and the emulator)"
if swift run --skip-build codegen-consumer | tee "$log/run"; then
    grep -q "checks passed" "$log/run" || fail "codegen-consumer did not finish its checks"
else
    fail "codegen-consumer failed"
fi

echo "== 3. a definition with an error fails the build with file and JSON pointer"
if swift build --target BrokenDefinitions >"$log/broken" 2>&1; then
    fail "BrokenDefinitions built although Broken.datasync.json has an error"
else
    expected='Broken.datasync.json:8:[0-9]+: error: /entityClasses/0/versions/0/properties/1/filtering: filtering must be none, simple or full'
    if grep -Eq "$expected" "$log/broken"; then
        grep -E "$expected" "$log/broken" | head -1
    else
        cat "$log/broken"
        fail "the build error does not name the file and the JSON pointer"
    fi
fi

echo "== 4. filters the tiers do not permit do not compile"
if swift build --target TierMisuse >"$log/misuse" 2>&1; then
    fail "TierMisuse compiled"
else
    for diagnostic in \
        "type 'Product.Filters' (aka 'Product.V2.Filters') has no member 'notes'" \
        "type 'Product.FastFilters' (aka 'Product.V2.FastFilters') has no member 'notes'" \
        "type 'Product.Filters' (aka 'Product.V2.Filters') has no member 'sku'" \
        "type 'Product.FastFilters' (aka 'Product.V2.FastFilters') has no member 'colour'" \
        "TypedFilter<Product.V2, FilterTier.Fast>"; do
        if grep -Fq "$diagnostic" "$log/misuse"; then
            echo "rejected: $diagnostic"
        else
            fail "expected the compiler to say: $diagnostic"
        fi
    done
    misuse_lines=$(grep -Ec "Misuse.swift:[0-9]+:[0-9]+: error" "$log/misuse" || true)
    [ "$misuse_lines" -ge 6 ] || { cat "$log/misuse"; fail "expected 6 errors in Misuse.swift, got $misuse_lines"; }
fi

echo "== 5. the command plugin validates and prints what would be generated"
if swift package --disable-sandbox datasync-codegen --target Catalog >"$log/command" 2>&1; then
    grep -q 'Product: entity class "Product"' "$log/command" || { cat "$log/command"; fail "no summary printed"; }
    grep -E "ok, [0-9]+ class" "$log/command" || true
else
    cat "$log/command"
    fail "the command plugin failed on valid definitions"
fi
if swift package --disable-sandbox datasync-codegen --target BrokenDefinitions >"$log/command-broken" 2>&1; then
    fail "the command plugin accepted Broken.datasync.json"
else
    grep -Eq "Broken.datasync.json:8:[0-9]+: error: /entityClasses/0/versions/0/properties/1/filtering" \
        "$log/command-broken" || { cat "$log/command-broken"; fail "the command plugin's error lacks file and pointer"; }
fi

if [ "$failures" -gt 0 ]; then
    echo "plugin-check: $failures check(s) failed" >&2
    exit 1
fi
echo "plugin-check: all 5 steps passed"
