#!/usr/bin/env bash
# Sets everything up, then builds and runs every test of Baton: the GTK tests run for real
# in a virtual display (xvfb-run) on a private session bus (dbus-run-session).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

swift build --build-tests
dbus-run-session -- xvfb-run -a -s "-screen 0 1280x1024x24" swift test --skip-build --disable-swift-testing
