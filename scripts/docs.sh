#!/usr/bin/env bash
# Builds the documentation of Baton, BatonGtk and BatonBus with the toolchain's own docc, adding
# no package dependency: builds the libraries, extracts their public symbol graphs
# (swift symbolgraph-extract; a module's re-exported Swift modules come along, GTK's C API does
# not), then converts each module's catalog, Sources/<Module>/<Module>.docc, into
# .build/docs/<Module>.doccarchive, ready for static hosting. Warnings are errors: an unresolved
# symbol link, in a catalog or in a doc comment, fails the module, and the script exits 1 if
# any module failed (after trying them all).
#
#     scripts/docs.sh                        # all three modules, and libbaton's GObject reference
#     scripts/docs.sh baton-1                # only libbaton's reference (gi-docgen, from Baton-1.0.gir)
#     scripts/docs.sh BatonGtk               # only the modules named
#     scripts/docs.sh --allow-warnings ...   # archives despite warnings (printed); errors still fail
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

strict=true
if [ "${1:-}" = "--allow-warnings" ]; then
    strict=false
    shift
fi
modules=()
gobject=false
for name in "$@"; do
    if [ "$name" = baton-1 ]; then gobject=true; else modules+=("$name"); fi
done
if (($# == 0)); then modules=(Baton BatonGtk BatonBus); gobject=true; fi
for module in "${modules[@]}"; do
    if [ ! -d "Sources/$module" ]; then
        echo "docs: no module $module (Sources/$module)" >&2
        exit 2
    fi
done

docc="$(dirname "$(command -v swift)")/docc"
if [ ! -x "$docc" ]; then
    echo "docs: no docc beside swift ($docc); it ships with Swift toolchains from swift.org" >&2
    exit 1
fi

out=.build/docs
graphs="$out/symbol-graphs"
mkdir -p "$out"

# 1. Build the libraries (the shared debug build; SwiftPM waits for other builds' lock).
for module in "${modules[@]}"; do
    swift build --target "$module"
done

# 2. Extract each module's symbol graph from the built modules. symbolgraph-extract needs what
# the compiler had: the module folder, the package's C module maps and pkg-config's flags.
bin="$(swift build --show-bin-path)"
module_dir="$bin/Modules"
if [ ! -d "$module_dir" ]; then module_dir="$bin"; fi   # SwiftPM before 6 kept modules here
triple="$(swift -print-target-info | sed -n 's/.*"triple": *"\([^"]*\)".*/\1/p' | head -n 1)"
clang_flags=()
for map in Sources/*/module.modulemap Sources/*/include/module.modulemap; do
    if [ -f "$map" ]; then clang_flags+=(-Xcc "-fmodule-map-file=$PWD/$map"); fi
done
for map in "$bin"/*.build/module.modulemap; do   # generated for C targets without their own map
    name="$(basename "$(dirname "$map")" .build)"
    if [ -f "$map" ] && [ -d "Sources/$name" ]; then clang_flags+=(-Xcc "-fmodule-map-file=$map"); fi
done
for include in Sources/*/include; do
    if [ -d "$include" ]; then clang_flags+=(-Xcc "-I$PWD/$include"); fi
done
mapfile -t pkg_config_names < <(sed -n 's/.*pkgConfig: *"\([^"]*\)".*/\1/p' Package.swift)
if ((${#pkg_config_names[@]})); then
    for flag in $(pkg-config --cflags "${pkg_config_names[@]}"); do clang_flags+=(-Xcc "$flag"); done
fi

# The Swift modules a module re-exports (`@_exported import X`, X a Swift target here): their
# symbols are part of its API (BatonGtk re-exports BatonGLib). Re-exported C modules (CGtk,
# CGLib) are left out: GTK's C API would add some 20 000 pages.
reexported_swift_modules() {
    { grep -rhoE '^@_exported import [A-Za-z_][A-Za-z0-9_]*' "Sources/$1" --include='*.swift' || true; } \
        | awk '{print $3}' | sort -u | while read -r name; do
            if [ -d "Sources/$name" ] && ! compgen -G "Sources/$name/module.modulemap" >/dev/null \
                && ! compgen -G "Sources/$name/include" >/dev/null; then
                echo "$name"
            fi
        done | paste -sd, -
}

for module in "${modules[@]}"; do
    rm -rf "${graphs:?}/$module"
    mkdir -p "$graphs/$module"
    reexports="$(reexported_swift_modules "$module")"
    extra=()
    if [ -n "$reexports" ]; then extra+=("-experimental-allowed-reexported-modules=$reexports"); fi
    swift symbolgraph-extract -module-name "$module" -target "$triple" -I "$module_dir" \
        -module-cache-path "$out/module-cache" "${clang_flags[@]}" \
        -minimum-access-level public -emit-extension-block-symbols "${extra[@]}" \
        -output-dir "$graphs/$module"
done

# 3. Convert. docc writes no archive when it fails.
diagnostics=(--warnings-as-errors)
if ! $strict; then diagnostics=(); fi
failed=()
built=()
for module in "${modules[@]}"; do
    catalog=()
    if [ -d "Sources/$module/$module.docc" ]; then catalog=("Sources/$module/$module.docc"); fi
    rm -rf "${out:?}/$module.doccarchive"
    echo "docs: converting $module"
    if "$docc" convert "${catalog[@]}" --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.baton.$module" \
        --output-path "$out/$module.doccarchive" "${diagnostics[@]}"; then
        built+=("$module")
    else
        failed+=("$module")
    fi
done

# 4. libbaton's GObject reference, from its .gir, by Debian's gi-docgen: `gi-docgen check` (every
# symbol documented) and the HTML in $out/baton-1; a warning of either fails it.
if $gobject; then
    echo "docs: libbaton's reference (gi-docgen)"
    if ! command -v gi-docgen >/dev/null 2>&1; then
        echo "docs: gi-docgen is not installed (scripts/setup.sh installs it)" >&2
        failed+=(baton-1)
    elif scripts/gir.sh >/dev/null; then
        gir_out="$(swift build --show-bin-path)/gir"
        check=$(gi-docgen check --add-include-path /usr/share/gir-1.0 "$gir_out/Baton-1.0.gir" 2>&1 | grep -v "INFO" || true)
        rm -rf "${out:?}/baton-1"
        generate_flags=(--quiet)
        if $strict; then generate_flags+=(--fatal-warnings); fi
        if [ -n "$check" ] && $strict; then
            echo "$check" >&2
            failed+=(baton-1)
        elif gi-docgen generate "${generate_flags[@]}" --config Sources/CBatonGObject/baton-1.toml \
            --output-dir "$out/baton-1" --no-namespace-dir --add-include-path /usr/share/gir-1.0 \
            "$gir_out/Baton-1.0.gir"; then
            echo "docs: libbaton's reference is in $out/baton-1/index.html"
        else
            failed+=(baton-1)
        fi
    else
        failed+=(baton-1)
    fi
fi

echo
if ((${#built[@]})); then
    echo "docs: built in $out/:"
    for module in "${built[@]}"; do echo "    $module.doccarchive"; done
    lower="$(echo "${built[0]}" | tr '[:upper:]' '[:lower:]')"
    echo "docs: to read one, serve its folder over HTTP and open /documentation/<module>, e.g."
    echo "    python3 -m http.server --directory $out/${built[0]}.doccarchive 8000"
    echo "    # then http://localhost:8000/documentation/$lower"
    echo "docs: or let docc rebuild and serve a catalog as you edit it:"
    echo "    $docc preview Sources/${built[0]}/${built[0]}.docc --additional-symbol-graph-dir $graphs/${built[0]}"
    echo "docs: to host below a path, add --hosting-base-path /PATH to the docc convert call"
fi
if ((${#failed[@]})); then
    echo "docs: FAILED: ${failed[*]} (see docc's messages above; every warning counts as an error)" >&2
    exit 1
fi
