#!/usr/bin/env bash
# Builds the README's install snippet as written: a throwaway package whose Package.swift holds the
# snippet's lines verbatim, next to this repository checked out (here: linked) as
# `datasync-swift`, the name the snippet uses. Fails when the snippet stops building, for example
# when a product is renamed. Builds into a temporary directory, removed afterwards.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$repo" "$work/datasync-swift"
mkdir -p "$work/MyApp/Sources/MyApp"
# The snippet: the first ```swift block after "## Install", without its fences.
snippet=$(awk '/^## Install/{inside=1} inside && /^```swift/{take=1; next} take && /^```/{exit} take{print}' "$repo/README.md")
if ! grep -q 'package(path: "../datasync-swift")' <<<"$snippet"; then
    echo "FAIL: no install snippet with the path form under README.md's \"## Install\"" >&2
    exit 1
fi
{
    echo '// swift-tools-version:6.0'
    echo 'import PackageDescription'
    echo 'let package = Package('
    echo '    name: "MyApp",'
    echo '    platforms: [.macOS(.v13), .iOS(.v16)],'
    echo "$snippet"
    echo ')'
} >"$work/MyApp/Package.swift"
cat >"$work/MyApp/Sources/MyApp/MyApp.swift" <<'SWIFT'
import DataSync

/// Uses the product the snippet names, so the build fails if it does not bring DataSync.
public func makeClient(_ configuration: PubNubConfiguration) -> PubNub {
    let pubnub = PubNub(configuration: configuration)
    _ = pubnub.dataSync
    return pubnub
}
SWIFT
log="$work/build.log"
if ! (cd "$work/MyApp" && swift build -Xswiftc -warnings-as-errors >"$log" 2>&1); then
    cat "$log"
    echo "FAIL: README.md's install snippet does not build" >&2
    exit 1
fi
grep -E "Build" "$log" || true
echo "README install snippet builds"
