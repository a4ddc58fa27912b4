#!/usr/bin/env bash
# Builds batond, baton and MailComposer in release mode and installs them for the current
# user: binaries in ~/.local/bin, the D-Bus service file (so the bus starts batond on
# demand), the systemd user unit, and MailComposer's desktop entry (so batond can launch it).
# PREFIX=/some/where changes where the binaries go (~/.local by default); the service file,
# unit and desktop entry always go where the session looks for them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

prefix="${PREFIX:-$HOME/.local}"
bindir="$prefix/bin"
data="${XDG_DATA_HOME:-$HOME/.local/share}"   # where the session bus and desktops look
config="${XDG_CONFIG_HOME:-$HOME/.config}"

swift build -c release --product batond
swift build -c release --product baton
swift build -c release --product MailComposer
bin="$(swift build -c release --show-bin-path)"

install -d "$bindir" "$data/dbus-1/services" "$config/systemd/user" "$data/applications" "$bindir/Baton_MailComposer.resources"
install -m 0755 "$bin/batond" "$bin/baton" "$bin/MailComposer" "$bindir/"
cp -R "$bin/Baton_MailComposer.resources/." "$bindir/Baton_MailComposer.resources/"
sed "s|@bindir@|$bindir|g" Sources/batond/Resources/org.baton.Daemon.service > "$data/dbus-1/services/org.baton.Daemon.service"
sed "s|@bindir@|$bindir|g" Sources/batond/Resources/batond.service > "$config/systemd/user/batond.service"
sed "s|^Exec=MailComposer|Exec=$bindir/MailComposer|" Examples/MailComposer/Resources/org.example.MailComposer.desktop \
    > "$data/applications/org.example.MailComposer.desktop"
if command -v systemctl >/dev/null 2>&1 && systemctl --user daemon-reload 2>/dev/null; then
    echo "install: systemd user unit installed (batond.service)"
fi
echo "install: done. Try: $bindir/baton status"
