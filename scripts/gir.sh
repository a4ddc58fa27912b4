#!/usr/bin/env bash
# Makes libbaton's introspection data and pkg-config file from its header and the built library:
#   OUT/Baton-1.0.gir      g-ir-scanner (Debian's gobject-introspection), from
#                          Sources/CBatonGObject/include/baton/*.h and the doc comments in src/*.c
#   OUT/Baton-1.0.typelib  g-ir-compiler
#   OUT/baton-1.vapi       vapigen (Debian's valac), with baton-1.deps, for Vala programs
#   OUT/baton-1.pc         pkg-config, for PREFIX (the install prefix; /usr/local by default) and
#                          LIBDIR (the library's folder; ${prefix}/lib by default)
#   OUT/baton-1-uninstalled.pc  pkg-config for the build itself (PKG_CONFIG_PATH=OUT)
# Usage: scripts/gir.sh [BIN]   BIN: the folder with libbaton-1.so (default: swift build's, built
# here first with `swift build --product baton-1`). OUT is BIN/gir. Any scanner warning fails it.
# Python then finds the library with GI_TYPELIB_PATH=OUT and LD_LIBRARY_PATH=BIN.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ge 1 ]; then
    bin=$1
else
    swift build --product baton-1 2>&1 | grep -v "prohibited flag" | grep -E "error|warning: .*baton" || true
    bin=$(swift build --show-bin-path)
fi
library="$bin/libbaton-1.so"
[ -f "$library" ] || { echo "gir: $library is missing: build it first (swift build --product baton-1)" >&2; exit 1; }
out="$bin/gir"
mkdir -p "$out"
source_dir=Sources/CBatonGObject

# The scanner's dumper links the library by its SONAME; give it that name beside the library.
ln -sf libbaton-1.so "$bin/libbaton-1.so.0"

log="$out/g-ir-scanner.log"
# No cache of parsed .gir files in the user's ~/.cache (the installer runs this too).
if ! GI_SCANNER_DISABLE_CACHE=1 LD_LIBRARY_PATH="$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" g-ir-scanner \
    --quiet --warn-all \
    --namespace=Baton --nsversion=1.0 \
    --identifier-prefix=Baton --symbol-prefix=baton \
    --include=Gtk-4.0 --pkg=gtk4 \
    --c-include=baton/baton.h --pkg-export=baton-1 \
    -I"$source_dir/include" -DBATON_COMPILATION \
    --library=baton-1 --library-path="$bin" \
    --output="$out/Baton-1.0.gir" \
    "$source_dir"/include/baton/*.h "$source_dir"/src/baton-*.c >"$log" 2>&1; then
    cat "$log" >&2
    echo "gir: g-ir-scanner failed" >&2
    exit 1
fi
if grep -qi "warning" "$log"; then
    cat "$log" >&2
    echo "gir: g-ir-scanner warned (above)" >&2
    exit 1
fi
g-ir-compiler --output="$out/Baton-1.0.typelib" "$out/Baton-1.0.gir"
# Vala's binding, from the .gir, and the packages it needs.
if command -v vapigen >/dev/null 2>&1; then
    if ! vapigen --quiet --library baton-1 --pkg gtk4 --directory "$out" "$out/Baton-1.0.gir" >"$out/vapigen.log" 2>&1 \
        || grep -qi "warning" "$out/vapigen.log"; then
        cat "$out/vapigen.log" >&2
        echo "gir: vapigen failed or warned (above)" >&2
        exit 1
    fi
    echo gtk4 >"$out/baton-1.deps"
else
    echo "gir: vapigen (valac) is not installed: no baton-1.vapi" >&2
fi

prefix=${PREFIX:-/usr/local}
libdir=${LIBDIR:-\${prefix\}/lib}
cat >"$out/baton-1.pc" <<PC
prefix=$prefix
libdir=$libdir
includedir=\${prefix}/include

Name: baton-1
Description: Handoff for GTK 4 apps: the GObject API of Baton
Version: 1.0.0
Requires: gtk4
Libs: -L\${libdir} -lbaton-1
Cflags: -I\${includedir}/baton-1
PC
# The same for the build itself: pkg-config prefers baton-1-uninstalled.pc where both are found.
cat >"$out/baton-1-uninstalled.pc" <<PC
Name: baton-1
Description: Handoff for GTK 4 apps: the GObject API of Baton (uninstalled, in $bin)
Version: 1.0.0
Requires: gtk4
Libs: -L$(cd "$bin" && pwd) -lbaton-1
Cflags: -I$(pwd)/$source_dir/include
PC
echo "gir: $out/Baton-1.0.gir, Baton-1.0.typelib, baton-1.vapi, baton-1.pc, baton-1-uninstalled.pc"
