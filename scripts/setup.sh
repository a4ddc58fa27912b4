#!/usr/bin/env bash
# Installs what Baton needs on a fresh Debian machine, then checks the Swift toolchain.
# Idempotent: packages already present are not reinstalled, and apt runs only when one is missing.
set -euo pipefail

packages=(
    pkg-config          # finds gtk4 for the BatonGtk C targets
    libgtk-4-dev        # GTK 4 headers and libraries
    xvfb xauth          # virtual display for the GTK tests (xvfb-run)
    dbus dbus-x11       # session bus for tests and the service
    libglib2.0-dev      # GIO headers (GDBus, GDesktopAppInfo) for the CGLib module
    libglib2.0-bin      # gdbus: scripts/run.sh and the service tests call it
    glib-networking     # TLS for GIO (GTlsConnection): batond's links to other devices
    avahi-daemon        # DNS-SD (_baton._tcp) for batond, and the two-namespace test
    iproute2            # ip netns and veth for the two-namespace test
    imagemagick         # screenshots of windows under Xvfb (import -window root)
    xdotool             # scripted typing into windows under Xvfb
)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        if [ -x "$candidate/swift" ]; then export PATH="$candidate:$PATH"; fi
    done
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "setup: no Swift toolchain found. Install Swift 6.1 or newer (swift.org) and put it on PATH." >&2
    exit 1
fi
echo "setup: ready ($(swift --version 2>/dev/null | head -n 1))"
