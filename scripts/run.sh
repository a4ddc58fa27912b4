#!/usr/bin/env bash
# Sets everything up, then runs the main job: MailComposer with the Baton service, on the
# user's display. batond is started for the session unless one is already running (it
# stops again with MailComposer). Extra arguments go to MailComposer, e.g.
# `scripts/run.sh --compose --to bob@example.org`; try `baton status` in another terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "run: no display (DISPLAY or WAYLAND_DISPLAY); MailComposer needs a graphical session." >&2
    echo "run: to try it headless: xvfb-run -a scripts/run.sh" >&2
    exit 1
fi
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] && [ ! -S "/run/user/$(id -u)/bus" ]; then
    echo "run: no D-Bus session bus; starting one for this run"
    exec dbus-run-session -- "$0" "$@"
fi

swift build --product batond
swift build --product baton
swift build --product MailComposer
bin="$(swift build --show-bin-path)"

if gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.NameHasOwner org.baton.Daemon 2>/dev/null | grep -q true; then
    echo "run: using the Baton service already running"
else
    state="${XDG_STATE_HOME:-$HOME/.local/state}/baton"
    mkdir -p "$state"
    "$bin/batond" 2>>"$state/batond.log" &
    batond_pid=$!
    trap 'kill "$batond_pid" 2>/dev/null || true' EXIT
    echo "run: started batond (pid $batond_pid, log $state/batond.log); try: $bin/baton status"
fi
"$bin/MailComposer" "$@"
