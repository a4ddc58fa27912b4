#!/usr/bin/env bash
# Builds Baton's Debian packages with Debian's own tooling (debian/, debhelper,
# dpkg-buildpackage) into dist/, then checks each with lintian (no error, and no warning that
# debian/*.lintian-overrides does not explain):
#   baton                batond, baton, the Baton app, the browser host, the systemd user unit,
#                        D-Bus activation, autostart and desktop entries, icons, metainfo, manual
#                        pages, completions, the browsers' native messaging host manifests, and
#                        the Swift runtime they load, in a folder of its own (the others depend
#                        on baton for it: `apt install ./dist/baton_*.deb` is all a person needs)
#   webext-baton         the browser extension, for Chromium and Firefox ESR
#   baton-examples       MailComposer and TextEditor
#   libbaton-1-0, gir1.2-baton-1.0, libbaton-dev   libbaton, the GObject library
# The version is BatonVersion's (Sources/BatonBus/BatonVersion.swift): debian/changelog is
# written from it here. The build runs on a copy of the tree's files (tracked and new, not
# ignored) in .build-package/, so nothing is written into the tree but dist/; swift build's
# folder is kept there between runs.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
usage: scripts/package.sh [--firefox-extension-id ID] [--no-lintian]
  --firefox-extension-id ID  the Firefox extension id the packages carry and the browser host
                             allows: that of a Baton extension your organisation signed (by
                             default the id in Browser/extension/manifest.json)
  --no-lintian               skip lintian
EOF
}

gecko_id=""
run_lintian=true
while (($#)); do
    case "$1" in
        --firefox-extension-id) gecko_id=${2:-}; [ -n "$gecko_id" ] || { usage >&2; exit 2; }; shift 2 ;;
        --firefox-extension-id=*) gecko_id=${1#--firefox-extension-id=}; shift ;;
        --no-lintian) run_lintian=false; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "package: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
done
source scripts/firefox-extension-id.sh
if [ -n "$gecko_id" ] && ! firefox_extension_id_is_valid "$gecko_id"; then
    echo "package: \"$gecko_id\" is not a Firefox extension id: give a {UUID} or name@domain (at most 80 characters)" >&2
    exit 2
fi

source scripts/setup.sh
started=$(date +%s)

version=$(scripts/baton-version.sh)

work=$PWD/.build-package
source_dir=$work/baton-$version
rm -rf "$source_dir" "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo
mkdir -p "$source_dir" dist
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
        [ ! -e "$file" ] || printf '%s\0' "$file"
    done | tar --null -T - -cf - | tar -xf - -C "$source_dir"
    changed=$(git log -1 --format=%aD 2>/dev/null || date -R)
else
    tar --exclude='./.build*' --exclude=./dist -cf - . | tar -xf - -C "$source_dir"
    changed=$(date -R)
fi
cat >"$source_dir/debian/changelog" <<EOF
baton ($version) unstable; urgency=medium

  * Baton $version, packaged from its source tree by scripts/package.sh.

 -- The Baton developers <baton@example.org>  $changed
EOF

echo "package: building baton $version in $source_dir"
(
    cd "$source_dir"
    export BATON_SWIFT_SCRATCH=$work/swift BATON_FIREFOX_EXTENSION_ID=$gecko_id
    DEB_BUILD_OPTIONS="noautodbgsym ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -b --no-sign
) >"$work/build.log" 2>&1 || {
    tail -n 40 "$work/build.log" >&2
    echo "package: dpkg-buildpackage failed; its whole log is $work/build.log" >&2
    exit 1
}
rm -f dist/*_"$version"_*.deb dist/baton_"$version"_*.changes dist/baton_"$version"_*.buildinfo
mv "$work"/*_"$version"_*.deb "$work"/baton_"$version"_*.changes "$work"/baton_"$version"_*.buildinfo dist/

if $run_lintian; then
    echo "package: lintian"
    lintian --fail-on error,warning --allow-root dist/baton_"$version"_*.changes
fi
echo "package: in dist/, built in $(($(date +%s) - started)) s:"
for deb in dist/*_"$version"_*.deb; do
    printf '  %-52s %6d KiB, %6d KiB installed\n' "$(basename "$deb")" "$(($(stat -c %s "$deb") / 1024))" \
        "$(dpkg-deb -f "$deb" Installed-Size)"
done
