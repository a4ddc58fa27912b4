#!/usr/bin/env bash
# The fast tier (`scripts/test.sh --fast`): builds, then runs the test classes listed in
# scripts/fast-tests.txt, which run inside the test process alone. They run with no display
# and with the session bus pointing nowhere, so a test that needs either fails here rather
# than touching the desktop it runs on. Everything else runs in `scripts/test.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

# `Target` or `Target.Class` a line: a regex of their test names (`Target.Class/testName`).
entries=()
while IFS= read -r line; do
    line=${line%%#*}
    line=${line//[[:space:]]/}
    [ -n "$line" ] && entries+=("${line//./\\.}")
done <scripts/fast-tests.txt
filter="^($(IFS='|'; echo "${entries[*]}"))[./]"

swift build --build-tests
start=$(date +%s)
status=0
env -u DISPLAY -u WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent \
    swift test --skip-build --disable-swift-testing --filter "$filter" || status=$?
echo "test: the fast tier took $(($(date +%s) - start)) s (scripts/test.sh runs every test)"
exit "$status"
