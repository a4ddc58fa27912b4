#!/bin/bash
# Do Debian's Chromium and Firefox ESR, as installed here, load the extension webext-baton
# installs, with no developer mode, no "Load unpacked" and no preference changed? Run by
# scripts/tests/packages.sh with the folder of the built packages: browsers.sh DEBS_DIR.
#
# Each browser runs once with webext-baton's files over /usr/share (an overlay mount, so the
# browser sees /usr/share/webext/baton and the links to it from /usr/share/chromium/extensions
# and /usr/share/mozilla/extensions/{ec8030f7-…} where the package puts them, and nothing is
# written to the system), and once without them, which must find no extension. A new profile
# each time; what the browser recorded in it says whether the extension is installed and
# enabled: Chromium's Preferences (extensions.settings.<id>: path, no disable reasons),
# Firefox's extensions.json (location app-system-share, active, not app-disabled: that is,
# accepted unsigned). About 1.5 minutes (25 s a run).
set -uo pipefail

debs=${1:?usage: browsers.sh DEBS_DIR}
chromium_id=bhnmbbkpgmdhfljebciiefpchldnmjoo
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for tool in unshare chromium firefox-esr xvfb-run python3; do
    command -v "$tool" >/dev/null || { echo "browsers: SKIP: $tool is not installed"; exit 0; }
done
deb=$(ls "$debs"/webext-baton_*_all.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "browsers: FAIL: no webext-baton_*_all.deb in $debs"; exit 1; }
work=$(mktemp -d -t baton-browsers.XXXXXX)
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$deb" "$work/package"
gecko_id=$(sed -n 's/^ *"id": *"\([^"]*\)".*/\1/p' "$work/package/usr/share/webext/baton/manifest.json")

# Runs the browser command ($3…) for 25 s in a fresh HOME ($2), in a mount namespace of its
# own where, when $1 is "installed", the package's /usr/share lies over the system's (a
# read-only overlay: nothing is written to the system).
run_browser() {
    local layout=$1 home=$2
    shift 2
    local lower=/usr/share
    [ "$layout" = installed ] && lower=$work/package/usr/share:/usr/share
    mkdir -p "$home"
    timeout 25 unshare --mount --propagation private --fork sh -c '
        if [ "$1" != /usr/share ]; then mount -t overlay baton-webext -o "lowerdir=$1" /usr/share || exit 1; fi
        shift
        exec "$@"' sh "$lower" env HOME="$home" xvfb-run -a "$@" >"$home.log" 2>&1
    return 0
}

# Chromium: Debian's wrapper, so /etc/chromium.d/extensions adds what /usr/share/chromium/extensions holds.
chromium_state() {
    python3 - "$1/profile/Default/Preferences" "$chromium_id" <<'EOF'
import json, sys
try:
    settings = json.load(open(sys.argv[1]))["extensions"]["settings"][sys.argv[2]]
except (OSError, ValueError, KeyError):
    print("not installed")
    sys.exit()
reasons = settings.get("disable_reasons") or []
print(f"enabled from {settings.get('path')}" if not reasons else f"disabled ({reasons}) from {settings.get('path')}")
EOF
}
for layout in installed without; do
    home=$work/chromium-$layout
    run_browser "$layout" "$home" /usr/bin/chromium --no-sandbox --user-data-dir="$home/profile" --no-first-run about:blank
    state=$(chromium_state "$home")
    case "$layout:$state" in
        "installed:enabled from /usr/share/webext/baton") pass "Chromium loads webext-baton's extension ($chromium_id), $state" ;;
        "without:not installed") pass "Chromium without webext-baton: no extension, as expected" ;;
        *) fail "Chromium, $layout webext-baton: $state (log: $(tail -n 3 "$home.log" | tr '\n' ' '))" ;;
    esac
done

# Firefox ESR: a new profile, no preference set.
firefox_state() {
    python3 - "$1/profile/extensions.json" "$gecko_id" <<'EOF'
import json, sys
try:
    addons = json.load(open(sys.argv[1]))["addons"]
except (OSError, ValueError, KeyError):
    print("no extensions.json")
    sys.exit()
for addon in addons:
    if addon.get("id") == sys.argv[2]:
        on = addon.get("active") and not addon.get("appDisabled") and not addon.get("userDisabled")
        print(("enabled" if on else "disabled") + f" in {addon.get('location')}, signed state {addon.get('signedState')}")
        sys.exit()
print("not installed")
EOF
}
for layout in installed without; do
    home=$work/firefox-$layout
    mkdir -p "$home/profile"
    run_browser "$layout" "$home" /usr/bin/firefox-esr --headless --no-remote --profile "$home/profile" about:blank
    state=$(firefox_state "$home")
    case "$layout:$state" in
        "installed:enabled in app-system-share, signed state None") pass "Firefox ESR loads webext-baton's extension ($gecko_id) unsigned: $state" ;;
        "installed:enabled in app-system-share"*) pass "Firefox ESR loads webext-baton's extension ($gecko_id): $state" ;;
        "without:not installed") pass "Firefox ESR without webext-baton: no extension, as expected" ;;
        *) fail "Firefox ESR, $layout webext-baton: $state (log: $(tail -n 3 "$home.log" | tr '\n' ' '))" ;;
    esac
done
exit $((failures > 0 ? 1 : 0))
