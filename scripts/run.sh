#!/usr/bin/env bash
# Sets everything up, then runs the main job: MailComposer on the user's display.
# Extra arguments go to MailComposer, e.g. `scripts/run.sh --compose --to bob@example.org`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "run: no display (DISPLAY or WAYLAND_DISPLAY); MailComposer needs a graphical session." >&2
    echo "run: to try it headless: xvfb-run -a scripts/run.sh" >&2
    exit 1
fi
swift build --product MailComposer
exec "$(swift build --show-bin-path)/MailComposer" "$@"
