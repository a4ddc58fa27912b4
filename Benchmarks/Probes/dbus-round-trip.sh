#!/usr/bin/env bash
# Builds dbus-round-trip.c and runs it on a private session bus: one process serves an echo
# method on the bus and on a peer-to-peer socket, another calls both.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/baton-dbus-rt.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 "$here/dbus-round-trip.c" -o "$work/echo" $(pkg-config --cflags --libs gio-2.0)
cat >"$work/run.sh" <<SCRIPT
"$work/echo" server "unix:path=$work/socket" &
server=\$!
for _ in \$(seq 1 50); do [ -S "$work/socket" ] && break; sleep 0.1; done
"$work/echo" client "unix:path=$work/socket"
kill \$server
SCRIPT
dbus-run-session -- bash "$work/run.sh" 2>/dev/null
