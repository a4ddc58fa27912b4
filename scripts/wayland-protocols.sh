#!/usr/bin/env bash
# Regenerates the C code of the Wayland protocols batond speaks (Sources/CWaylandProtocols) from
# their XML, vendored beside it: wlr-data-control-unstable-v1, for the clipboard. Needs
# wayland-scanner (Debian's libwayland-bin). The generated files are committed, so that a build
# does not need wayland-scanner; run this after changing or adding an XML file.
set -euo pipefail

cd "$(dirname "$0")/../Sources/CWaylandProtocols"
for xml in protocols/*.xml; do
    name=$(basename "$xml" .xml)
    wayland-scanner client-header "$xml" "include/$name-client-protocol.h"
    wayland-scanner private-code "$xml" "$name-protocol.c"
done
