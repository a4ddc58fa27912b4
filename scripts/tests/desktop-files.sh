#!/usr/bin/env bash
# Checks the desktop integration files the project ships, as they are in the tree (under
# Sources/ and Examples/), without building anything:
#   desktop entries   desktop-file-validate on every *.desktop (@bindir@ replaced by /usr/bin
#                     in a copy, as the installer does), which must print nothing; the icon
#                     each names is shipped (beside it, or, like the Baton app's, which is
#                     batond's, by another part the installer installs)
#   AppStream         appstreamcli validate --no-net on every *.metainfo.xml (no errors, no
#                     warnings), and validate-tree on the tree it is installed in with its
#                     folder's desktop entries and icons, so its launchable entry is found
#   icons             every *.svg renders (rsvg-convert); app icons have a 128×128 viewBox,
#                     symbolic ones 16×16 and only #2e3436
#   D-Bus services    every [D-BUS Service] file: Name= is the file's name, and its desktop
#                     entry's when it has one; Exec= is there; a private dbus-daemon reading
#                     them lists each name as activatable
# The X-Baton-* keys against each app's Info.plist are checked by the Swift test
# Tests/BatondTests/Service/ExampleDeclarationsTests.swift, not here.
# Says which Debian package provides a missing tool. Exits non-zero when a check fails, with
# the tool's own message.
set -euo pipefail
cd "$(dirname "$0")/../.."

failures=0
fail() {
    echo "desktop-files-check: FAIL: $*" >&2
    failures=$((failures + 1))
}
pass() {
    echo "desktop-files-check: pass: $*"
}
# Prints a tool's output indented, under the message it belongs to.
indented() {
    if [ -n "$1" ]; then printf '%s\n' "$1" | sed 's/^/    /'; fi
}

missing=()
for tool in desktop-file-validate:desktop-file-utils appstreamcli:appstream rsvg-convert:librsvg2-bin \
    dbus-daemon:dbus-daemon gdbus:libglib2.0-bin; do
    if ! command -v "${tool%%:*}" >/dev/null 2>&1; then missing+=("$tool"); fi
done
if ((${#missing[@]})); then
    for tool in "${missing[@]}"; do
        echo "desktop-files-check: FAIL: ${tool%%:*} is missing (Debian package ${tool#*:})" >&2
    done
    echo "desktop-files-check: install them with: sudo apt-get install $(printf '%s\n' "${missing[@]}" | cut -d: -f2 | sort -u | tr '\n' ' ')" >&2
    exit 1
fi

work=$(mktemp -d -t baton-desktop-files.XXXXXX)
bus_pid=""
cleanup() {
    if [ -n "$bus_pid" ]; then kill "$bus_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# The value of `$2=` in the [Desktop Entry] group (or the group `$3`) of the key file `$1`.
key() {
    local group=${3:-Desktop Entry}
    awk -v group="[$group]" -v key="$2" '
        /^\[/ { inside = ($0 == group); next }
        inside && index($0, key "=") == 1 { print substr($0, length(key) + 2); exit }
    ' "$1"
}

shipped() {
    find Sources Examples -type f -name "$1" -not -path '*/.build/*' | sort
}

# --- desktop entries
entries=()
while IFS= read -r file; do entries+=("$file"); done < <(shipped '*.desktop')
((${#entries[@]})) || fail "no desktop entries found under Sources/ and Examples/"
for entry in "${entries[@]}"; do
    copy="$work/entries/$(basename "$entry")"
    mkdir -p "$work/entries"
    sed 's|@bindir@|/usr/bin|g' "$entry" >"$copy"
    status=0
    output=$(desktop-file-validate "$copy" 2>&1) || status=$?
    if [ "$status" -eq 0 ] && [ -z "$output" ]; then
        pass "desktop-file-validate $entry"
    else
        fail "desktop-file-validate $entry (status $status):"
        indented "${output//$copy/$entry}" >&2
    fi
    icon=$(key "$entry" Icon)
    if [ -z "$icon" ]; then
        fail "$entry names no Icon="
    elif [ -n "$(find Sources Examples -path '*/Resources/*' -type f \( -name "$icon.svg" -o -name "$icon.png" \) | head -n 1)" ]; then
        pass "$entry: its icon $icon is shipped"
    else
        fail "$entry: Icon=$icon, but no $icon.svg or $icon.png is shipped under Sources/*/Resources or Examples/*/Resources"
    fi
done

# --- AppStream metainfo
metainfos=()
while IFS= read -r file; do metainfos+=("$file"); done < <(shipped '*.metainfo.xml')
for metainfo in "${metainfos[@]}"; do
    status=0
    output=$(appstreamcli validate --no-net --explain "$metainfo" 2>&1) || status=$?
    if [ "$status" -eq 0 ]; then
        pass "appstreamcli validate --no-net $metainfo: $(printf '%s\n' "$output" | tail -n 1 | sed 's/^[^A-Za-z]*//')"
    else
        fail "appstreamcli validate --no-net $metainfo (status $status):"
        indented "$output" >&2
    fi
    # Installed as the installer does, beside the desktop entries and icons of its folder.
    folder=$(dirname "$metainfo")
    tree="$work/tree/$(basename "$metainfo" .metainfo.xml)"
    mkdir -p "$tree/usr/share/metainfo" "$tree/usr/share/applications" "$tree/usr/share/icons"
    cp "$metainfo" "$tree/usr/share/metainfo/"
    for entry in "$folder"/*.desktop; do
        [ -f "$entry" ] || continue
        sed 's|@bindir@|/usr/bin|g; s|^Exec=\([^/@]\)|Exec=/usr/bin/\1|' "$entry" >"$tree/usr/share/applications/$(basename "$entry")"
    done
    if [ -d "$folder/icons" ]; then cp -R "$folder/icons/." "$tree/usr/share/icons/"; fi
    status=0
    output=$(appstreamcli validate-tree --no-net --explain "$tree" 2>&1) || status=$?
    if [ "$status" -eq 0 ]; then
        pass "appstreamcli validate-tree: $metainfo with its desktop entry and icons"
    else
        fail "appstreamcli validate-tree --no-net with $metainfo (status $status):"
        indented "$output" >&2
    fi
done

# --- icons
icons=()
while IFS= read -r file; do icons+=("$file"); done < <(shipped '*.svg')
for icon in "${icons[@]}"; do
    status=0
    output=$(rsvg-convert "$icon" 2>&1 >/dev/null) || status=$?
    if [ "$status" -ne 0 ] || [ -n "$output" ]; then
        fail "rsvg-convert $icon (status $status):"
        indented "$output" >&2
        continue
    fi
    case "$icon" in
        *-symbolic.svg) want="0 0 16 16" ;;
        *) want="0 0 128 128" ;;
    esac
    if ! grep -q "viewBox=\"$want\"" "$icon"; then
        fail "$icon renders, but has no viewBox=\"$want\""
        continue
    fi
    case "$icon" in
        *-symbolic.svg)
            colours=$(grep -oE '#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b' "$icon" | sort -u | tr '\n' ' ')
            if [ "$colours" != "#2e3436 " ]; then
                fail "$icon is symbolic but uses the colours $colours(only #2e3436 is recoloured by GTK)"
                continue
            fi ;;
    esac
    pass "$icon renders (viewBox $want)"
done

# --- D-Bus service files
services=()
while IFS= read -r file; do
    if grep -qxF '[D-BUS Service]' "$file"; then services+=("$file"); fi
done < <(shipped '*.service')
mkdir -p "$work/services"
names=()
for service in "${services[@]}"; do
    name=$(key "$service" Name "D-BUS Service")
    exec_line=$(key "$service" Exec "D-BUS Service")
    base=$(basename "$service" .service)
    if [ "$name" != "$base" ]; then
        fail "$service: Name=$name, but the bus finds it under its file name $base"
        continue
    fi
    if [ -z "$exec_line" ]; then
        fail "$service: no Exec="
        continue
    fi
    entry=$(find "$(dirname "$service")" -maxdepth 1 -name "$base.desktop" | head -n 1)
    if [ -n "$entry" ]; then
        pass "$service: Name=$name, the name of its desktop entry $(basename "$entry")"
    else
        pass "$service: Name=$name, its file name"
    fi
    sed 's|@bindir@|/usr/bin|g' "$service" >"$work/services/$base.service"
    names+=("$name")
done
if ((${#names[@]})); then
    cat >"$work/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$work/bus</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$work/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
    if started=$(dbus-daemon --config-file="$work/bus.conf" --fork --print-address=1 --print-pid=1 2>"$work/bus.log"); then
        address=$(echo "$started" | sed -n 1p)
        bus_pid=$(echo "$started" | sed -n 2p)
        status=0
        activatable=$(timeout 10 gdbus call --address "$address" --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.ListActivatableNames 2>&1) || status=$?
        for name in "${names[@]}"; do
            if [ "$status" -eq 0 ] && [[ "$activatable" == *"'$name'"* ]]; then
                pass "dbus-daemon reads the service file of $name and lists it as activatable"
            else
                fail "dbus-daemon does not list $name as activatable: $activatable"
                indented "$(cat "$work/bus.log")" >&2
            fi
        done
    else
        fail "dbus-daemon did not start on the service files:"
        indented "$(cat "$work/bus.log")" >&2
    fi
fi

echo "desktop-files-check: note: the X-Baton-* keys against Info.plist are Tests/BatondTests/Service/ExampleDeclarationsTests.swift's check"
if ((failures)); then
    echo "desktop-files-check: $failures check(s) failed" >&2
    exit 1
fi
echo "desktop-files-check: all checks passed (${#entries[@]} desktop entries, ${#metainfos[@]} metainfo, ${#icons[@]} icons, ${#names[@]} D-Bus service files)"
