#!/usr/bin/env bash
# Builds and runs the README's "Adopting Baton" example as it stands in README.md: every
# ```swift block that follows a `<!-- readme-example: PATH -->` line is written to PATH in a
# new package, beside a copy of this one named `baton` (as the README tells a newcomer to
# check it out). Then, on a private session bus in a virtual display, with batond running,
# the example app starts and `baton activities --json` must list its activity.
#
#     scripts/check-readme-example.sh     # part of scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/baton-readme.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/baton" "$work/example"

# This package as a newcomer's checkout would have it: its files, not its build folders.
git ls-files -z --cached --others --exclude-standard | tar --null -cf - -T - | tar -xf - -C "$work/baton"

# The README's example files, extracted.
awk -v root="$work/example" '
    /^<!-- readme-example: .* -->$/ { path = $3; next }
    path != "" && /^```swift$/ { inside = 1; file = root "/" path; n = split(file, parts, "/")
                                 dir = substr(file, 1, length(file) - length(parts[n]) - 1)
                                 system("mkdir -p \"" dir "\""); printf "" > file; next }
    inside && /^```$/ { inside = 0; path = ""; close(file); next }
    inside { print >> file }
' README.md
for expected in Package.swift Sources/Notes/main.swift; do
    if [ ! -s "$work/example/$expected" ]; then
        echo "readme-example: README.md has no example block for $expected" >&2
        exit 1
    fi
done
echo "readme-example: extracted $(cd "$work/example" && find . -type f | sort | tr '\n' ' ')"

start=$SECONDS
if ! swift build --package-path "$work/example" >"$work/build.log" 2>&1; then
    grep -v "prohibited flag" "$work/build.log" | tail -n 40 >&2
    echo "readme-example: the README's example does not build" >&2
    exit 1
fi
echo "readme-example: built in $((SECONDS - start)) s"

swift build --product batond >/dev/null
swift build --product baton >/dev/null
bin=$(swift build --show-bin-path)
example=$(swift build --package-path "$work/example" --show-bin-path)/Notes

cat >"$work/run.sh" <<SCRIPT
set -u
export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
"$bin/batond" >"$work/batond.log" 2>&1 &
batond=\$!
"$example" >"$work/notes.log" 2>&1 &
notes=\$!
listed=1
for _ in \$(seq 1 100); do
    if "$bin/baton" activities --json 2>/dev/null | grep -q '"org.example.notes.note"'; then listed=0; break; fi
    sleep 0.1
done
"$bin/baton" status || true
"$bin/baton" activities || true
kill \$notes \$batond 2>/dev/null
wait 2>/dev/null
exit \$listed
SCRIPT
if dbus-run-session -- xvfb-run -a -s "-screen 0 1024x768x24" bash "$work/run.sh"; then
    echo "readme-example: the example's note is listed by baton activities"
else
    echo "readme-example: the example ran but batond never listed its activity" >&2
    echo "--- the example's output:" >&2; cat "$work/notes.log" >&2
    echo "--- batond's output:" >&2; tail -n 40 "$work/batond.log" >&2
    exit 1
fi
