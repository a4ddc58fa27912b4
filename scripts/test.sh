#!/usr/bin/env bash
# Sets everything up, then builds and runs every test of Baton: the GTK tests run for real
# in a virtual display (xvfb-run) on a private session bus (dbus-run-session).
# On failure, the failing tests and their messages are repeated after XCTest's summary.
# `scripts/test.sh --fast` runs only the fast tier (scripts/fast-tests.txt), for use while
# developing: the tests that need no batond, bus, display or child process.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--fast" ]; then
    exec bash scripts/test-fast.sh
fi
source scripts/setup.sh

swift build --build-tests

log=$(mktemp -t baton-test.XXXXXX)
status_file=$(mktemp -t baton-test-status.XXXXXX)
trap 'rm -f "$log" "$status_file"' EXIT
# The status is the tests' own, written from inside xvfb-run: xvfb-run's own exit code
# also counts the cleanup of its temporary folder, which is not a test result.
launcher_status=0
dbus-run-session -- xvfb-run -a -s "-screen 0 1280x1024x24" \
    sh -c 'swift test --skip-build --disable-swift-testing; echo $? >"$0"' "$status_file" 2>&1 \
    | tee "$log" || launcher_status=$?
status=$(cat "$status_file")
if [ -z "$status" ]; then
    echo "test: the tests did not run to their end (dbus-run-session/xvfb-run exited with $launcher_status)" >&2
    exit 1
fi

# The README's example, built and run as it stands there; the documentation, whose symbol
# links must all resolve; the checks of the scripts themselves.
scripts_status=0
for check in scripts/check-readme-example.sh scripts/docs.sh scripts/tests/*.sh; do
    [ -f "$check" ] || continue
    echo "test: $check"
    if ! bash "$check"; then
        echo "test: $check failed" >&2
        scripts_status=1
    fi
done
if [ "$launcher_status" -ne 0 ] && [ "$status" -eq 0 ]; then
    echo "test: note: the tests passed; dbus-run-session/xvfb-run exited with $launcher_status afterwards" >&2
fi
if [ "$status" -ne 0 ]; then
    echo
    echo "test: failures (exit $status):"
    # -a: a test's output may hold a NUL byte, and grep would then say only "binary file matches".
    grep -aE ": error: |' failed \(|Fatal error|signal code" "$log" || echo "  (no XCTest failure lines: see the log above)"
    grep -aE "^[[:space:]]*Executed .* tests?, with" "$log" | tail -n 1 || true
fi
if [ "$scripts_status" -ne 0 ] && [ "$status" -eq 0 ]; then status=1; fi
exit "$status"
