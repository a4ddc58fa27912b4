#!/usr/bin/env bash
# Checks scripts/install-service.sh and scripts/uninstall-service.sh in a temporary HOME (with
# XDG_* there too): every file is installed with a sane mode, the unit is enabled for the
# graphical session (its link in graphical-session.target.wants/) and passes
# `systemd-analyze verify`, the desktop entries pass desktop-file-validate (each example's
# names the installed program on every Exec line; MailComposer is in the MIME cache as a
# mailto: handler and TextEditor for text/markdown, neither made the default), the D-Bus
# service files start the installed programs, the icons are SVG documents, the examples'
# metainfo passes appstreamcli, the
# completion scripts parse, the manual pages render, the browsers' native messaging manifests
# name the installed browser host and allow only the extension's ids; with a fake systemctl
# first on PATH, the scripts go through `systemctl --user` instead. Then the installed batond
# runs on a private bus, a second one exits at once with status 0, the installed browser host
# registers with it (verified by its installed entry), and uninstall-service.sh stops batond,
# removes every installed file (and the examples from the MIME cache, and the browser folders
# it made) but leaves the user's state and keys, which --purge deletes.
# Installs the debug products (`swift build --show-bin-path`), built here when missing.
# Exits non-zero when a case fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

failures=0
fail() {
    echo "install-service-check: FAIL: $*" >&2
    failures=$((failures + 1))
}
pass() {
    echo "install-service-check: pass: $*"
}

if ! command -v swift >/dev/null 2>&1; then source scripts/setup.sh >/dev/null; fi
bin=$(swift build --show-bin-path)
examples=(MailComposer TextEditor)
for product in batond baton baton-app baton-browser-host "${examples[@]}"; do
    [ -x "$bin/$product" ] || swift build --product "$product"
done
[ -f "$bin/libbaton-1.so" ] || swift build --product baton-1
# swift-argument-parser's generate-manual tool, which install-service.sh finds beside the
# debug products: built now, in the caller's own environment (below, HOME is a temporary one).
if ! tool_output=$(swift package generate-manual --help 2>&1); then
    echo "install-service-check: FAIL: swift package generate-manual --help: $tool_output" >&2
    exit 1
fi

home=$(mktemp -d -t baton-install-check.XXXXXX)
bus_pid=""
batond_pid=""
cleanup() {
    if [ -n "$batond_pid" ]; then kill "$batond_pid" 2>/dev/null || true; fi
    if [ -n "$bus_pid" ]; then kill "$bus_pid" 2>/dev/null || true; fi
    rm -rf "$home"
}
trap cleanup EXIT
mkdir -m 0700 "$home/run"
# The scripts and everything they start see this HOME only; the runtime folder holds no user
# manager and the bus address leads nowhere, so no real systemd or bus is touched.
export HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
    XDG_STATE_HOME="$home/.local/state" XDG_CACHE_HOME="$home/.cache" XDG_RUNTIME_DIR="$home/run" \
    DBUS_SESSION_BUS_ADDRESS="unix:path=$home/run/no-bus"
unset PREFIX
bindir="$home/.local/bin"
prefix="$home/.local"
libdir="$prefix/lib"
data="$XDG_DATA_HOME"
config="$XDG_CONFIG_HOME"
unit="$config/systemd/user/batond.service"
link="$config/systemd/user/graphical-session.target.wants/batond.service"
mandir="$data/man"

# --- install
status=0
output=$(scripts/install-service.sh --binaries "$bin" 2>&1) || status=$?
if [ "$status" -ne 0 ]; then
    fail "install-service.sh exited with status $status: $output"
    exit 1
fi
case "$output" in
    *"warning"*) fail "install-service.sh warned: $output" ;;
    *"enabled by linking"*) pass "install-service.sh ran; without a user manager it linked the unit itself" ;;
    *) fail "install-service.sh did not say how it enabled the unit: $output" ;;
esac

listed=()
while IFS= read -r path; do listed+=("$path"); done < <(scripts/install-service.sh --list-files)
expected=("$bindir/batond" "$bindir/baton"
    "$data/dbus-1/services/org.baton.Daemon.service" "$unit" "$link"
    "$config/autostart/org.baton.Daemon.desktop" "$data/applications/org.baton.Daemon.desktop"
    "$data/icons/hicolor/scalable/apps/org.baton.Daemon.svg"
    "$data/icons/hicolor/symbolic/apps/org.baton.Daemon-symbolic.svg"
    "$data/bash-completion/completions/baton" "$data/bash-completion/completions/batond"
    "$data/zsh/site-functions/_baton" "$data/zsh/site-functions/_batond"
    "$config/fish/completions/baton.fish" "$config/fish/completions/batond.fish"
    "$mandir/man1/baton.1" "$mandir/man1/batond.1"
    "$bindir/baton-browser-host" "$data/applications/org.baton.BrowserHost.desktop"
    "$config/chromium/NativeMessagingHosts/org.baton.browser_host.json"
    "$config/google-chrome/NativeMessagingHosts/org.baton.browser_host.json"
    "$home/.mozilla/native-messaging-hosts/org.baton.browser_host.json"
    "$data/baton/browser-extension/manifest.json" "$data/baton/browser-extension/background.js")
for example in "${examples[@]}"; do
    expected+=("$bindir/$example" "$bindir/Baton_$example.resources"
        "$data/applications/org.example.$example.desktop" "$data/dbus-1/services/org.example.$example.service"
        "$data/icons/hicolor/scalable/apps/org.example.$example.svg"
        "$data/icons/hicolor/symbolic/apps/org.example.$example-symbolic.svg"
        "$data/metainfo/org.example.$example.metainfo.xml")
done
expected+=("$libdir/libbaton-1.so.0" "$libdir/libbaton-1.so" "$prefix/include/baton-1/baton/baton.h"
    "$libdir/pkgconfig/baton-1.pc" "$prefix/share/gir-1.0/Baton-1.0.gir"
    "$libdir/girepository-1.0/Baton-1.0.typelib" "$data/baton/examples/python/notes.py"
    "$data/applications/org.example.PyNotes.desktop" "$bindir/baton-notes"
    "$data/applications/org.example.CNotes.desktop" "$data/baton/examples/javascript/notes.js"
    "$data/applications/org.example.JSNotes.desktop" "$prefix/share/vala/vapi/baton-1.vapi")
for path in "${expected[@]}"; do
    [[ " ${listed[*]} " == *" $path "* ]] || fail "--list-files does not list $path"
done

# Every listed file is there, with its mode; and nothing else was installed (but for the
# caches the installer refreshes, which are shared and never listed).
mime_cache="$data/applications/mimeinfo.cache"
icon_cache="$data/icons/hicolor/icon-theme.cache"
mode_failures=$failures
for path in "${listed[@]}"; do
    if [ "$path" = "$link" ] || [ "$path" = "$libdir/libbaton-1.so" ]; then
        [ -L "$path" ] || fail "$path is not a symbolic link"
        continue
    fi
    if [ ! -e "$path" ]; then
        fail "$path was not installed"
        continue
    fi
    mode=$(stat -c %a "$path")
    case "$path" in
        "$bindir/Baton_"*.resources) want=755 ;;
        "$bindir/"*) want=755 ;;
        *) want=644 ;;
    esac
    [ "$mode" = "$want" ] || fail "$path has mode $mode, not $want"
    [ "$(stat -c %U "$path")" = "$(id -un)" ] || fail "$path is not owned by $(id -un)"
done
while IFS= read -r path; do
    case "$path" in "$bindir/Baton_"*.resources/* | "$mime_cache" | "$icon_cache") continue ;; esac
    [[ " ${listed[*]} " == *" $path "* ]] || fail "$path was installed but is not listed (uninstall would leave it)"
done < <(find "$home" \( -type f -o -type l \) -not -path "$home/run/*")
for example in "${examples[@]}"; do
    [ -f "$bindir/Baton_$example.resources/Resources/Info.plist" ] || fail "$example's resources were not copied"
done
[ "$failures" -eq "$mode_failures" ] && pass "all ${#listed[@]} listed files installed, 0755 programs and 0644 files, none unlisted"

# libbaton, installed: Python loads it by its typelib alone (which names the library by its
# path), and pkg-config gives a C program its flags.
if python_output=$(GI_TYPELIB_PATH="$libdir/girepository-1.0" /usr/bin/python3 -c '
import gi
gi.require_version("Baton", "1.0")
from gi.repository import Baton
print(Baton.Activity.new("org.example.check").props.activity_type)' 2>&1) && [ "$python_output" = "org.example.check" ]; then
    pass "the installed typelib and library load in Python without LD_LIBRARY_PATH"
else
    fail "the installed libbaton does not load in Python: $python_output"
fi
if flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs baton-1 2>&1) \
    && [[ "$flags" == *"-I$prefix/include/baton-1"* && "$flags" == *"-L$libdir -lbaton-1"* ]]; then
    pass "pkg-config baton-1 names the installed header and library"
else
    fail "pkg-config baton-1: $flags"
fi

if ldd "$bindir/baton-notes" 2>&1 | grep -q "libbaton-1.so.0 => $libdir/libbaton-1.so.0"; then
    pass "the installed C example finds the installed libbaton-1.so.0 by its run path"
else
    fail "the installed C example does not find libbaton: $(ldd "$bindir/baton-notes" 2>&1 | grep baton)"
fi

# The unit, enabled for the graphical session.
if [ "$(readlink "$link")" = "$unit" ] && [ "$(readlink -f "$link")" = "$(readlink -f "$unit")" ]; then
    pass "graphical-session.target.wants/batond.service links to the unit"
else
    fail "the wants link points at $(readlink "$link"), not $unit"
fi
for line in "WantedBy=graphical-session.target" "PartOf=graphical-session.target" "After=graphical-session.target" \
    "ExecStart=$bindir/batond" "Type=dbus" "BusName=org.baton.Daemon"; do
    grep -qxF "$line" "$unit" || fail "the unit has no line $line"
done
grep -qxF "Exec=$bindir/batond" "$data/dbus-1/services/org.baton.Daemon.service" \
    || fail "the D-Bus service file does not start $bindir/batond"
if command -v systemd-analyze >/dev/null 2>&1; then
    # MANPATH: verify also checks that Documentation=man:batond(1) opens.
    verify_status=0
    verify=$(MANPATH="$mandir" systemd-analyze verify --user "$unit" 2>&1) || verify_status=$?
    if [ "$verify_status" -eq 0 ] && [ -z "$verify" ]; then
        pass "systemd-analyze verify --user accepts the unit"
    else
        fail "systemd-analyze verify --user: status $verify_status: $verify"
    fi
else
    echo "install-service-check: note: no systemd-analyze; the unit is not verified"
fi

# The desktop entries.
if command -v desktop-file-validate >/dev/null 2>&1; then
    for entry in "$data/applications/org.baton.Daemon.desktop" "$config/autostart/org.baton.Daemon.desktop" \
        "$data/applications/org.example.MailComposer.desktop" "$data/applications/org.example.TextEditor.desktop" \
        "$data/applications/org.baton.BrowserHost.desktop"; do
        if validation=$(desktop-file-validate "$entry" 2>&1) && [ -z "$validation" ]; then
            pass "desktop-file-validate: $(basename "$(dirname "$entry")")/$(basename "$entry")"
        else
            fail "desktop-file-validate $entry: $validation"
        fi
    done
else
    fail "desktop-file-validate is missing (Debian package desktop-file-utils)"
fi
entry="$data/applications/org.baton.Daemon.desktop"
for line in "NoDisplay=true" "Icon=org.baton.Daemon" "Name=Baton" "Exec=$bindir/batond"; do
    grep -qxF "$line" "$entry" || fail "batond's entry has no line $line"
done
autostart="$config/autostart/org.baton.Daemon.desktop"
for line in "X-systemd-skip=true" "X-GNOME-Autostart-Phase=Applications" "Exec=$bindir/batond" "TryExec=$bindir/batond"; do
    grep -qxF "$line" "$autostart" || fail "the autostart entry has no line $line"
done
if grep -qE '^(Hidden|NoDisplay)=true' "$autostart"; then fail "the autostart entry is hidden"; fi
# Each example's entry: every Exec line (the main group's and the actions') starts the
# installed program, with its arguments kept.
for example in "${examples[@]}"; do
    installed_entry="$data/applications/org.example.$example.desktop"
    source_entry="$root/Examples/$example/Resources/org.example.$example.desktop"
    want_exec=$(grep '^Exec=' "$source_entry" | sed "s|^Exec=$example|Exec=$bindir/$example|")
    have_exec=$(grep '^Exec=' "$installed_entry" || true)
    if [ -n "$have_exec" ] && [ "$have_exec" = "$want_exec" ] && [ "$(printf '%s\n' "$have_exec" | wc -l)" -ge 2 ]; then
        pass "$example's entry starts $bindir/$example on all $(printf '%s\n' "$have_exec" | wc -l) Exec lines"
    else
        fail "$example's Exec lines are: $have_exec; wanted: $want_exec"
    fi
    for line in "Icon=org.example.$example" "X-Baton-TeamID=org.example" "DBusActivatable=true"; do
        grep -qxF "$line" "$installed_entry" || fail "$example's entry has no line $line"
    done
done
mail_entry="$data/applications/org.example.MailComposer.desktop"
grep -qxF "MimeType=text/markdown;text/x-markdown;text/plain;" "$data/applications/org.example.TextEditor.desktop" \
    || fail "TextEditor's entry does not declare its MIME types"
grep -qxF "MimeType=x-scheme-handler/mailto;" "$mail_entry" || fail "MailComposer's entry does not declare mailto:"
# Known as a mailto: handler (the MIME cache), but not made the user's default one.
if command -v update-desktop-database >/dev/null 2>&1; then
    if grep -qE '^x-scheme-handler/mailto=(.*;)?org\.example\.MailComposer\.desktop;' "$mime_cache" 2>/dev/null; then
        pass "update-desktop-database ran: mimeinfo.cache lists MailComposer for x-scheme-handler/mailto"
    else
        fail "mimeinfo.cache does not list MailComposer for mailto: $(cat "$mime_cache" 2>&1)"
    fi
    grep -qE '^text/markdown=(.*;)?org\.example\.TextEditor\.desktop;' "$mime_cache" 2>/dev/null \
        || fail "mimeinfo.cache does not list TextEditor for text/markdown: $(cat "$mime_cache" 2>&1)"
else
    fail "update-desktop-database is missing (Debian package desktop-file-utils)"
fi
defaults=$(find "$config" "$data" -name mimeapps.list 2>/dev/null)
[ -z "$defaults" ] || fail "the installation wrote default handlers: $defaults"
# Where no other mail app is installed, as on a fresh machine, GIO picks it for mailto: links
# (what xdg-open and the desktop open) without any default having been set.
if command -v gio >/dev/null 2>&1; then
    others=$(grep -ls 'x-scheme-handler/mailto' /usr/share/applications/*.desktop /usr/local/share/applications/*.desktop 2>/dev/null || true)
    handler=$(gio mime x-scheme-handler/mailto 2>&1 | sed -n 1p)
    if [ -n "$others" ]; then
        echo "install-service-check: note: other mailto: handlers are installed ($others); GIO's choice: $handler"
    elif [[ "$handler" == *"org.example.MailComposer.desktop"* ]]; then
        pass "with no other mail app installed, mailto: links open MailComposer ($handler)"
    else
        fail "GIO does not pick MailComposer for mailto: links: $handler"
    fi
fi

# The D-Bus service files start the installed programs under their bus names.
for example in "${examples[@]}"; do
    example_service="$data/dbus-1/services/org.example.$example.service"
    for line in "[D-BUS Service]" "Name=org.example.$example" "Exec=$bindir/$example --gapplication-service"; do
        grep -qxF "$line" "$example_service" || fail "$example's D-Bus service file has no line $line"
    done
done
if grep -q '@bindir@' "$data/dbus-1/services/"*.service; then
    fail "a D-Bus service file still says @bindir@"
fi

# The browser host: its entry (by which batond verifies it), the browsers' host manifests naming
# the installed host and allowing the extension (the Chromium id is the one its manifest's key
# gives: the first 32 hex digits of the key's SHA-256, 0-f written a-p), and the extension.
host_entry="$data/applications/org.baton.BrowserHost.desktop"
for line in "NoDisplay=true" "Exec=$bindir/baton-browser-host" "X-Baton-TeamID=org.baton" \
    "X-Baton-ActivityTypes=NSUserActivityTypeBrowsingWeb;"; do
    grep -qxF "$line" "$host_entry" || fail "the browser host's entry has no line $line"
done
extension_manifest="$data/baton/browser-extension/manifest.json"
key=$(sed -n 's/^ *"key": *"\([A-Za-z0-9+\/=]*\)".*/\1/p' "$extension_manifest")
extension_id=$(printf '%s' "$key" | base64 -d 2>/dev/null | sha256sum | cut -c1-32 | tr '0-9a-f' 'a-p')
gecko_id=$(sed -n 's/^ *"id": *"\([^"]*\)".*/\1/p' "$extension_manifest")
shipped_gecko_id=$(sed -n 's/^ *"id": *"\([^"]*\)".*/\1/p' "$root/Browser/extension/manifest.json")
if [ -z "$key" ] || [ "${#extension_id}" -ne 32 ] || [ -z "$gecko_id" ]; then
    fail "the extension's manifest has no key or no Firefox id: key ${key:0:20}…, gecko id $gecko_id"
fi
# Firefox's id is the installation's own, not the shipped one anyone could publish under.
if [[ "$gecko_id" =~ ^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$ ]] && [ "$gecko_id" != "$shipped_gecko_id" ]; then
    pass "the installed extension's Firefox id is the installation's own ($gecko_id)"
else
    fail "the installed extension's Firefox id is $gecko_id, not a new {UUID} (the shipped one is $shipped_gecko_id)"
fi
for manifest in "$config/chromium/NativeMessagingHosts/org.baton.browser_host.json" \
    "$config/google-chrome/NativeMessagingHosts/org.baton.browser_host.json" \
    "$home/.mozilla/native-messaging-hosts/org.baton.browser_host.json"; do
    case "$manifest" in
        */.mozilla/*) allowed="\"allowed_extensions\": [\"$gecko_id\"]" ;;
        *) allowed="\"allowed_origins\": [\"chrome-extension://$extension_id/\"]" ;;
    esac
    parsed=true
    if command -v python3 >/dev/null 2>&1; then python3 -m json.tool "$manifest" >/dev/null 2>&1 || parsed=false; fi
    if $parsed && grep -qF "\"path\": \"$bindir/baton-browser-host\"" "$manifest" && grep -qF "$allowed" "$manifest" \
        && grep -qF '"name": "org.baton.browser_host"' "$manifest" && grep -qF '"type": "stdio"' "$manifest"; then
        pass "$(basename "$(dirname "$(dirname "$manifest")")")'s host manifest names $bindir/baton-browser-host and allows only the extension"
    else
        fail "the host manifest $manifest: $(cat "$manifest")"
    fi
done
sed "s|\"id\": \"$shipped_gecko_id\"|\"id\": \"$gecko_id\"|" "$root/Browser/extension/manifest.json" \
    | cmp -s "$extension_manifest" - && cmp -s "$data/baton/browser-extension/background.js" \
    "$root/Browser/extension/background.js" || fail "the installed extension differs from Browser/extension (but for its Firefox id)"

# Installed again, the extension keeps its id (Firefox would otherwise see another extension);
# a pinned id replaces it, and an id that is none is refused, changing nothing.
firefox_host="$home/.mozilla/native-messaging-hosts/org.baton.browser_host.json"
allowed_id() { sed -n 's/.*"allowed_extensions": *\["\([^"]*\)"\].*/\1/p' "$firefox_host"; }
scripts/install-service.sh --binaries "$bin" >/dev/null 2>&1 || fail "install-service.sh failed when run again"
if [ "$(allowed_id)" = "$gecko_id" ] && grep -qF "\"id\": \"$gecko_id\"" "$extension_manifest"; then
    pass "installed again, the extension keeps its Firefox id"
else
    fail "installed again, the Firefox id changed: $(allowed_id)"
fi
status=0
refusal=$(scripts/install-service.sh --binaries "$bin" --firefox-extension-id 'x", "evil@example.org' 2>&1) || status=$?
if [ "$status" -eq 2 ] && [[ "$refusal" == *"is not a Firefox extension id"* ]] && [ "$(allowed_id)" = "$gecko_id" ]; then
    pass "an id that is none is refused, and nothing changes"
else
    fail "--firefox-extension-id with a quote: status $status, $refusal; allowed now $(allowed_id)"
fi
scripts/install-service.sh --binaries "$bin" --firefox-extension-id baton@example.org >/dev/null 2>&1 \
    || fail "install-service.sh --firefox-extension-id baton@example.org failed"
if [ "$(allowed_id)" = "baton@example.org" ] && grep -qF '"id": "baton@example.org"' "$extension_manifest"; then
    pass "--firefox-extension-id pins the one id the host allows"
else
    fail "--firefox-extension-id baton@example.org: the host allows $(allowed_id)"
fi
scripts/install-service.sh --binaries "$bin" --firefox-extension-id "$gecko_id" >/dev/null 2>&1 \
    || fail "install-service.sh could not go back to the installation's id"

# The examples' AppStream metainfo.
if command -v appstreamcli >/dev/null 2>&1; then
    for example in "${examples[@]}"; do
        metainfo="$data/metainfo/org.example.$example.metainfo.xml"
        if appstream=$(appstreamcli validate --no-net "$metainfo" 2>&1); then
            pass "appstreamcli validate --no-net accepts $example's installed metainfo"
        else
            fail "appstreamcli validate --no-net $metainfo: $appstream"
        fi
    done
else
    fail "appstreamcli is missing (Debian package appstream)"
fi

# The icons: SVG documents, the symbolic one in one colour.
for icon in "$data/icons/hicolor/scalable/apps/org.baton.Daemon.svg" "$data/icons/hicolor/symbolic/apps/org.baton.Daemon-symbolic.svg" \
    "$data/icons/hicolor/scalable/apps/org.example."*.svg "$data/icons/hicolor/symbolic/apps/org.example."*-symbolic.svg; do
    if ! command -v python3 >/dev/null 2>&1; then
        grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$icon" || fail "$icon is not an SVG document"
    elif python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(r.tag != "{http://www.w3.org/2000/svg}svg")' "$icon" 2>/dev/null; then
        pass "$(basename "$icon") is an SVG document"
    else
        fail "$icon is not an SVG document"
    fi
done
for icon in "$data/icons/hicolor/symbolic/apps/"*-symbolic.svg; do
    colours=$(grep -oE '#[0-9a-fA-F]{6}' "$icon" | sort -u)
    [ "$colours" = "#2e3436" ] || fail "$(basename "$icon") uses colours other than #2e3436: $colours"
done

# Completions and manual pages.
for program in baton batond; do
    completion="$data/bash-completion/completions/$program"
    if bash -n "$completion" && bash -c 'source "$1" && complete -p "$2"' _ "$completion" "$program" >/dev/null 2>&1; then
        pass "the bash completion of $program parses and registers"
    else
        fail "the bash completion of $program does not parse or register"
    fi
    grep -q "^#compdef $program" "$data/zsh/site-functions/_$program" || fail "_$program is not a zsh completion"
    grep -q "^complete -c '$program'" "$config/fish/completions/$program.fish" || fail "$program.fish is not a fish completion"
    if command -v zsh >/dev/null 2>&1; then zsh -n "$data/zsh/site-functions/_$program" || fail "_$program does not parse"; fi
    if command -v fish >/dev/null 2>&1; then fish -n "$config/fish/completions/$program.fish" || fail "$program.fish does not parse"; fi
    page="$mandir/man1/$program.1"
    if command -v man >/dev/null 2>&1; then
        rendered=$(MANWIDTH=80 man -l "$page" 2>/dev/null || true)
        found=$(MANPATH="$mandir" man -w "$program" 2>/dev/null || true)
        if [[ "$rendered" == *"$program —"* && "$rendered" == *"--version"* ]] && [ "$found" = "$page" ]; then
            pass "man $program renders, and man finds it under share/man"
        else
            fail "man -l $page: ${rendered:0:200}; man -w: $found"
        fi
    else
        grep -q "^\.Dt ${program^^} 1" "$page" || fail "$page is not an mdoc page"
    fi
done
version=$("$bindir/baton" --version)
if [ -n "$version" ] && [ "$version" = "$("$bindir/batond" --version)" ]; then
    pass "baton --version and batond --version both print $version"
else
    fail "baton --version: $version; batond --version: $("$bindir/batond" --version)"
fi

# The installed batond runs; a second start is harmless; uninstall stops the first.
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1)
DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | sed -n 1p)
bus_pid=$(echo "$bus" | sed -n 2p)
"$bindir/batond" --no-discovery --listen 127.0.0.1:0 2>"$home/run/batond.log" &
batond_pid=$!
for _ in $(seq 100); do
    grep -q "is org.baton.Daemon" "$home/run/batond.log" && break
    sleep 0.1
done
grep -q "is org.baton.Daemon" "$home/run/batond.log" || fail "the installed batond did not start: $(cat "$home/run/batond.log")"
second_status=0
timeout 10 "$bindir/batond" --no-discovery --listen 127.0.0.1:0 2>"$home/run/second.log" || second_status=$?
if [ "$second_status" -eq 0 ] && grep -q "owned by another batond" "$home/run/second.log"; then
    pass "a second batond exits with status 0 and says why"
else
    fail "a second batond: status $second_status: $(cat "$home/run/second.log")"
fi
[ -f "$XDG_CONFIG_HOME/baton/identity.pem" ] || fail "batond made no identity in $XDG_CONFIG_HOME/baton"
# The installed browser host, as a browser starts it (a message on standard input, which then
# ends), registers with batond, which verifies it by its installed entry; it exits with 0.
host_status=0
{ printf '\016\000\000\000{"page": null}'; sleep 1; } | timeout 10 "$bindir/baton-browser-host" \
    "chrome-extension://$extension_id/" 2>"$home/run/browser-host.log" || host_status=$?
if [ "$host_status" -eq 0 ] && grep -q "registered with the Baton service" "$home/run/browser-host.log" \
    && grep -q "registered org.baton.BrowserHost .*verified by $host_entry" "$home/run/batond.log"; then
    pass "the installed baton-browser-host registers, verified by its installed entry, and exits with 0 at the end of its input"
else
    fail "the installed browser host: status $host_status: $(cat "$home/run/browser-host.log"); batond: $(grep BrowserHost "$home/run/batond.log")"
fi

status=0
output=$(scripts/uninstall-service.sh 2>&1) || status=$?
[ "$status" -eq 0 ] || fail "uninstall-service.sh exited with status $status: $output"
if kill -0 "$batond_pid" 2>/dev/null; then
    sleep 1
    kill -0 "$batond_pid" 2>/dev/null && fail "uninstall-service.sh left the running batond"
fi
[[ "$output" == *"stopped batond (pid $batond_pid)"* ]] || fail "uninstall-service.sh did not say it stopped batond: $output"
wait "$batond_pid" 2>/dev/null || true
batond_pid=""
left=()
for path in "${listed[@]}"; do
    if [ -e "$path" ] || [ -L "$path" ]; then left+=("$path"); fi
done
[ -e "$config/systemd/user/graphical-session.target.wants" ] && left+=("the wants folder")
for folder in "$data/baton" "$config/chromium" "$config/google-chrome" "$home/.mozilla"; do
    [ -e "$folder" ] && left+=("$folder")
done
if ((${#left[@]} == 0)); then pass "uninstall-service.sh stopped batond and removed every installed file"; else fail "uninstall left ${left[*]}"; fi
# The MIME cache was rewritten without the examples (and, listing nothing then, removed).
if [ -e "$mime_cache" ] && grep -q 'org\.example\.\(MailComposer\|TextEditor\)\.desktop' "$mime_cache"; then
    fail "after uninstall, mimeinfo.cache still lists an example app: $(cat "$mime_cache")"
elif [ -e "$mime_cache" ]; then
    fail "after uninstall, a mimeinfo.cache that lists nothing but its header was left: $(cat "$mime_cache")"
else
    pass "uninstall-service.sh refreshed the MIME cache: no mailto: handler left behind"
fi
if [ -f "$XDG_CONFIG_HOME/baton/identity.pem" ] && [ -d "$XDG_STATE_HOME/baton" ] && [[ "$output" == *"kept $XDG_CONFIG_HOME/baton"* ]]; then
    pass "without --purge, the identity and state stay, and it says so"
else
    fail "without --purge, the identity or state is gone, or unmentioned: $output"
fi

# --purge: again from a fresh installation.
scripts/install-service.sh --binaries "$bin" >/dev/null 2>&1 || fail "the second installation failed"
status=0
output=$(scripts/uninstall-service.sh --purge 2>&1) || status=$?
[ "$status" -eq 0 ] || fail "uninstall-service.sh --purge exited with status $status: $output"
if [ ! -e "$XDG_CONFIG_HOME/baton" ] && [ ! -e "$XDG_STATE_HOME/baton" ] \
    && [[ "$output" == *"deleted $XDG_CONFIG_HOME/baton"* && "$output" == *"deleted $XDG_STATE_HOME/baton"* ]]; then
    pass "--purge deletes the identity and state, and names them"
else
    fail "--purge: $output"
fi
remaining=$(find "$home" -mindepth 1 -not -path "$home/run" -not -path "$home/run/*" \( -type f -o -type l \) | head -n 5)
[ -z "$remaining" ] || fail "files remain after --purge: $remaining"

# With a user manager (a fake systemctl that records its calls), enabling goes through it.
fake="$home/run/fake-bin"
mkdir -p "$fake"
printf '#!/bin/sh\necho "$*" >>"%s"\ncase "$*" in *is-active*) exit 3 ;; esac\nexit 0\n' "$home/run/systemctl.log" >"$fake/systemctl"
chmod +x "$fake/systemctl"
status=0
output=$(PATH="$fake:$PATH" scripts/install-service.sh --binaries "$bin" 2>&1) || status=$?
calls=$(cat "$home/run/systemctl.log" 2>/dev/null || true)
if [ "$status" -eq 0 ] && [[ "$calls" == *"--user daemon-reload"*"--user enable batond.service"* ]] && [ ! -e "$link" ] \
    && [[ "$output" == *"starts with the next graphical session"* ]]; then
    pass "with a user manager, install-service.sh runs systemctl --user daemon-reload and enable"
else
    fail "with a fake systemctl: status $status, calls: $calls; output: $output"
fi
: >"$home/run/systemctl.log"
PATH="$fake:$PATH" scripts/uninstall-service.sh --purge >/dev/null 2>&1 || fail "uninstall-service.sh with a fake systemctl failed"
calls=$(cat "$home/run/systemctl.log")
if [[ "$calls" == *"--user disable --now batond.service"* ]] && [ ! -e "$unit" ]; then
    pass "with a user manager, uninstall-service.sh disables and stops the unit through systemctl"
else
    fail "uninstall with a fake systemctl: calls: $calls"
fi

# Where the user's icons/hicolor has an index.theme, the icon cache is refreshed: with the
# icons after installing, without them after uninstalling (rebuilt, not deleted: it is shared).
icon_tool=$(command -v gtk4-update-icon-cache || command -v gtk-update-icon-cache || true)
if [ -n "$icon_tool" ]; then
    mkdir -p "$data/icons/hicolor"
    cp /usr/share/icons/hicolor/index.theme "$data/icons/hicolor/index.theme" 2>/dev/null \
        || printf '[Icon Theme]\nName=Hicolor\nDirectories=scalable/apps,symbolic/apps\n\n[scalable/apps]\nSize=128\nType=Scalable\nMinSize=8\nMaxSize=512\nContext=Applications\n\n[symbolic/apps]\nSize=16\nType=Scalable\nMinSize=8\nMaxSize=512\nContext=Applications\n' \
            >"$data/icons/hicolor/index.theme"
    status=0
    output=$(scripts/install-service.sh --binaries "$bin" 2>&1) || status=$?
    if [ "$status" -eq 0 ] && [ -f "$icon_cache" ] && grep -qa 'org.example.MailComposer-symbolic' "$icon_cache"; then
        pass "with an index.theme, install-service.sh refreshes the icon cache ($(basename "$icon_tool"))"
    else
        fail "with an index.theme: status $status, icon cache: $(ls -l "$icon_cache" 2>&1); output: $output"
    fi
    scripts/uninstall-service.sh --purge >/dev/null 2>&1 || fail "uninstall-service.sh after the icon cache case failed"
    # (With no icon left, the tool removes the cache itself.)
    if ! grep -qa 'org.example.MailComposer' "$icon_cache" 2>/dev/null; then
        pass "uninstall-service.sh rebuilds the icon cache without MailComposer's icons"
    else
        fail "after uninstall, the icon cache still lists MailComposer"
    fi
    rm -f "$data/icons/hicolor/index.theme" "$icon_cache"
else
    echo "install-service-check: note: no gtk4-update-icon-cache or gtk-update-icon-cache; the icon cache is not checked"
fi

cd "$root"
if ((failures)); then
    echo "install-service-check: $failures check(s) failed" >&2
    exit 1
fi
echo "install-service-check: all checks passed"
