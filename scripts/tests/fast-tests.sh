#!/usr/bin/env bash
# Checks scripts/fast-tests.txt, the fast tier of `scripts/test.sh --fast`: each line names a
# test target under Tests/, or a class declared in that target, so that a renamed or moved
# class does not silently leave the tier. Needs only bash and grep.
set -euo pipefail
cd "$(dirname "$0")/../.."

failures=0
while IFS= read -r line; do
    line=${line%%#*}
    line=${line//[[:space:]]/}
    [ -n "$line" ] || continue
    target=${line%%.*}
    if [ ! -d "Tests/$target" ]; then
        echo "fast-tests: FAIL: $line: no test target Tests/$target" >&2
        failures=$((failures + 1))
    elif [ "$target" != "$line" ] \
        && ! grep -rqE "^(final )?class ${line#*.}\b" "Tests/$target" --include='*.swift'; then
        echo "fast-tests: FAIL: $line: no class ${line#*.} in Tests/$target" >&2
        failures=$((failures + 1))
    fi
done <scripts/fast-tests.txt
if [ "$failures" -ne 0 ]; then exit 1; fi
echo "fast-tests: pass: every entry of scripts/fast-tests.txt names a test target or class"
