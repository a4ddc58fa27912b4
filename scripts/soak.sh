#!/usr/bin/env bash
# Runs only the soak (SoakTests: 1 000 continuations between two batonds, then 1 000 on one
# device) and prints its figures. scripts/test.sh runs it too, among all the tests.
#
#     scripts/soak.sh [ROUNDS]    # ROUNDS continuations in each soak instead of 1 000
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

if [ $# -gt 0 ]; then export BATON_SOAK_ROUNDS="$1"; fi
swift build --build-tests

log=$(mktemp -t baton-soak.XXXXXX)
status_file=$(mktemp -t baton-soak-status.XXXXXX)
trap 'rm -f "$log" "$status_file"' EXIT
# As in scripts/test.sh, the status is the tests' own, written from inside xvfb-run.
dbus-run-session -- xvfb-run -a -s "-screen 0 1280x1024x24" \
    sh -c 'swift test --skip-build --disable-swift-testing --filter SoakTests; echo $? >"$0"' "$status_file" \
    >"$log" 2>&1 || true
status=$(cat "$status_file")
if [ -z "$status" ] || [ "$status" -ne 0 ]; then
    cat "$log"
    echo "soak: failed (exit ${status:-none})" >&2
    exit 1
fi
grep -E "^soak, |^  [^ ]" "$log" || true
grep -E "Executed .* tests?, with" "$log" | tail -n 1
