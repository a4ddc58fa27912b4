#!/usr/bin/env bash
# Checks that scripts/setup.sh refuses a Swift toolchain that is on PATH but cannot start,
# saying which shared library is missing and which Debian package holds it, and that it
# still passes a working one. Each case sources setup.sh as the other scripts do, in a
# caller with `set -euo pipefail`, with a fake `swift` first on PATH: a wrapper that runs a
# `swift-frontend` beside it, an ELF program built here against a library then deleted.
# Exits non-zero when a case fails. Needs a C compiler (cc) for the fake toolchain.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

failures=0
fail() {
    echo "setup-check: FAIL: $*" >&2
    failures=$((failures + 1))
}
pass() {
    echo "setup-check: pass: $*"
}

compiler=$(command -v cc || command -v gcc || command -v clang || true)
if [ -z "$compiler" ]; then
    echo "setup-check: FAIL: no C compiler (cc, gcc or clang) to build the fake toolchain" >&2
    exit 1
fi

work=$(mktemp -d -t baton-setup-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

# A fake toolchain in $work/$1/bin whose swift-frontend needs the library with soname $2,
# which is built for the link and then deleted, so the loader cannot find it.
make_toolchain() {
    local name=$1 soname=$2
    local build="$work/$name/build" bin="$work/$name/bin"
    mkdir -p "$build" "$bin"
    printf 'int baton_setup_check_symbol(void) { return 0; }\n' >"$build/library.c"
    printf 'int baton_setup_check_symbol(void);\nint main(void) { return baton_setup_check_symbol(); }\n' \
        >"$build/main.c"
    "$compiler" -shared -fPIC -Wl,-soname,"$soname" -o "$build/$soname" "$build/library.c"
    "$compiler" -o "$bin/swift-frontend" "$build/main.c" "$build/$soname"
    rm -rf "$build"
    printf '#!/bin/sh\nexec "$(dirname "$0")/swift-frontend" "$@"\n' >"$bin/swift"
    chmod +x "$bin/swift"
    echo "$bin"
}

# Sources setup.sh with $1 first on PATH; sets `status` and `output` (stdout and stderr).
run_setup() {
    status=0
    output=$(PATH="$1:$PATH" bash -c 'set -euo pipefail; source scripts/setup.sh; echo "setup-check: the caller went on"' 2>&1) \
        || status=$?
}

# Case 1: a library no Debian package is known for.
bin=$(make_toolchain unknown libbatonnotthere.so.1)
if "$bin/swift" --version >/dev/null 2>&1; then
    fail "the fake toolchain runs: cannot test"
fi
run_setup "$bin"
if [ "$status" -ne 1 ]; then fail "an unstartable swift: exit status $status, not 1: $output"; fi
case "$output" in
    *"setup: ready"*) fail "an unstartable swift was reported ready: $output" ;;
    *"the caller went on"*) fail "the sourcing script went on after the failure: $output" ;;
    *"does not run"*"missing shared libraries: libbatonnotthere.so.1"*"no Debian package is known here for libbatonnotthere.so.1"*)
        pass "an unstartable swift: exit 1, names the missing library" ;;
    *) fail "an unstartable swift: the message does not name libbatonnotthere.so.1: $output" ;;
esac

# Case 2: a library a Debian package provides, taken among those this machine lacks (a fake
# toolchain that starts has found its library installed: the next one is tried).
known=""
for pair in libtinfo.so.5:libtinfo5 libncurses.so.5:libncurses5 libxml2.so.16:libxml2-16 libz3.so.4:libz3-4 \
    libedit.so.2:libedit2 libsqlite3.so.0:libsqlite3-0 libncurses.so.6:libncurses6 libtinfo.so.6:libtinfo6; do
    soname=${pair%%:*}
    bin=$(make_toolchain "known-$soname" "$soname")
    if ! "$bin/swift" --version >/dev/null 2>&1; then
        known=$soname
        expected=${pair##*:}
        break
    fi
done
if [ -z "$known" ]; then
    echo "setup-check: note: every library of the mapped cases is installed here; the package case is not run"
else
    run_setup "$bin"
    if [ "$status" -ne 1 ]; then fail "missing $known: exit status $status, not 1: $output"; fi
    case "$output" in
        *"missing shared libraries: $known"*"sudo apt-get install $expected"*)
            pass "missing $known: names the package $expected" ;;
        *) fail "missing $known: the message does not name the package $expected: $output" ;;
    esac
fi

# Case 3: a swift that exits 0 but prints no version.
mkdir -p "$work/silent/bin"
printf '#!/bin/sh\nexit 0\n' >"$work/silent/bin/swift"
chmod +x "$work/silent/bin/swift"
run_setup "$work/silent/bin"
if [ "$status" -ne 1 ]; then fail "a silent swift: exit status $status, not 1: $output"; fi
case "$output" in
    *"setup: ready"* | *"the caller went on"*) fail "a silent swift was accepted: $output" ;;
    *"printed no version"*) pass "a silent swift: exit 1, says it printed no version" ;;
    *) fail "a silent swift: unclear message: $output" ;;
esac

# Case 4: a swift too old for the package's swift-tools-version 6.1.
mkdir -p "$work/old/bin"
printf '#!/bin/sh\necho "Swift version 6.0.3 (swift-6.0.3-RELEASE)"\n' >"$work/old/bin/swift"
chmod +x "$work/old/bin/swift"
run_setup "$work/old/bin"
if [ "$status" -ne 1 ]; then fail "an old swift: exit status $status, not 1: $output"; fi
case "$output" in
    *"setup: ready"* | *"the caller went on"*) fail "an old swift was accepted: $output" ;;
    *"needs Swift 6.1 or newer"*"6.0"*) pass "an old swift: exit 1, names the version needed and the one found" ;;
    *) fail "an old swift: unclear message: $output" ;;
esac

# Case 5: the toolchain on PATH, when there is one that runs, still passes.
if command -v swift >/dev/null 2>&1 && swift --version 2>/dev/null | grep -q "Swift version"; then
    run_setup "$(dirname "$(command -v swift)")"
    case "$status:$output" in
        "0:"*"setup: ready (Swift version"*"the caller went on"*) pass "a working swift: ready, and the caller goes on" ;;
        *) fail "a working swift: exit status $status: $output" ;;
    esac
else
    echo "setup-check: note: no working swift on PATH; the working case is not run"
fi

cd "$root"
if ((failures)); then
    echo "setup-check: $failures case(s) failed" >&2
    exit 1
fi
echo "setup-check: all cases passed"
