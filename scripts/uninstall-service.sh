#!/usr/bin/env bash
# Removes what scripts/install-service.sh installed for the current user, as that script
# lists it (`install-service.sh --list-files`, with the same PREFIX, HOME and XDG_* variables):
# the binaries, the D-Bus service files, the systemd user unit and its link in
# graphical-session.target.wants/, the autostart entry, the desktop entries of batond, the browser
# host and the example apps (MailComposer, TextEditor), the browsers' native messaging host
# manifests and the browser extension's folder (a browser that loaded it keeps its own copy of
# nothing: remove it in the browser too), the icons, the examples' AppStream metainfo, the shell
# completions and the manual pages. A batond running from the installed binary is stopped first (through systemd when a
# user manager runs). The shared caches the installer refreshed are refreshed again, not
# deleted: update-desktop-database rewrites applications/mimeinfo.cache without the examples'
# MIME claims (a cache left describing nothing is removed), and the icon cache is rebuilt
# where icons/hicolor has an index.theme.
#
# The user's own data stays: batond's state, this device's identity key and pairings
# (so the other devices stay paired), MailComposer's mail and windows, TextEditor's saved
# windows. `--purge` deletes those too, and says which folders it deleted; documents are the
# person's and are never touched.
set -euo pipefail
cd "$(dirname "$0")/.."

purge=false
while (($#)); do
    case "$1" in
        --purge) purge=true; shift ;;
        -h | --help)
            echo "usage: scripts/uninstall-service.sh [--purge]"
            echo "  --purge  also delete batond's state, this device's identity and pairings, MailComposer's data and TextEditor's saved windows (never your documents)"
            exit 0 ;;
        *) echo "uninstall-service: unknown argument $1" >&2; exit 2 ;;
    esac
done

prefix="${PREFIX:-$HOME/.local}"
bindir="$prefix/bin"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
config="${XDG_CONFIG_HOME:-$HOME/.config}"
state="${XDG_STATE_HOME:-$HOME/.local/state}"

files=()
while IFS= read -r path; do files+=("$path"); done < <(scripts/install-service.sh --list-files)
if ((${#files[@]} == 0)); then
    echo "uninstall-service: install-service.sh --list-files listed nothing" >&2
    exit 1
fi

manager=false
if command -v systemctl >/dev/null 2>&1 && systemctl --user daemon-reload >/dev/null 2>&1; then manager=true; fi
if $manager; then
    systemctl --user disable --now batond.service >/dev/null 2>&1 || true
fi

# The processes of this user running the installed batond (also when it was replaced since:
# the kernel then adds " (deleted)" to the path).
installed_batonds() {
    local process exe
    for process in /proc/[0-9]*; do
        [ -O "$process" ] || continue
        exe=$(readlink "$process/exe" 2>/dev/null) || continue
        if [ "$exe" = "$bindir/batond" ] || [ "$exe" = "$bindir/batond (deleted)" ]; then echo "${process#/proc/}"; fi
    done
}
running=$(installed_batonds)
if [ -n "$running" ]; then
    for pid in $running; do kill -TERM "$pid" 2>/dev/null || true; done
    for _ in $(seq 50); do
        [ -n "$(installed_batonds)" ] || break
        sleep 0.1
    done
    left=$(installed_batonds)
    if [ -n "$left" ]; then
        echo "uninstall-service: batond (pid $(echo $left)) did not stop within 5 s; stopping it with SIGKILL" >&2
        for pid in $left; do kill -KILL "$pid" 2>/dev/null || true; done
    fi
    echo "uninstall-service: stopped batond (pid $(echo $running))"
fi

removed=0
for path in "${files[@]}"; do
    if [ -L "$path" ] || [ -f "$path" ]; then
        rm -f -- "$path"
    elif [ -d "$path" ] && case "$(basename "$path")" in Baton_*.resources) true ;; *) false ;; esac; then
        rm -rf -- "$path"
    else
        continue
    fi
    removed=$((removed + 1))
done
# The unit's wants folder, when the link was all it held; the extension's folder; the browsers'
# native messaging folders (and the browser's own, for a browser never used), when empty.
rmdir "$config/systemd/user/graphical-session.target.wants" 2>/dev/null || true
rmdir "$data/baton/browser-extension" "$data/baton/examples/python" "$data/baton/examples/javascript" "$data/baton/examples" "$data/baton" 2>/dev/null || true
# libbaton's folders, when it was all they held.
rmdir "$prefix/include/baton-1/baton" "$prefix/include/baton-1" "$prefix/lib/pkgconfig" \
    "$prefix/lib/girepository-1.0" "$prefix/share/gir-1.0" "$prefix/share/vala/vapi" "$prefix/share/vala" 2>/dev/null || true
for browser in "$config/chromium" "$config/google-chrome" "$HOME/.mozilla"; do
    for folder in "$browser/NativeMessagingHosts" "$browser/native-messaging-hosts" "$browser"; do
        rmdir "$folder" 2>/dev/null || true
    done
done
# The MIME cache of the applications folder, which other apps' entries may be in too: written
# again from what is left. One that lists no handler at all (no `type=entries;` line, only its
# group header) is removed, as though update-desktop-database had never run there.
applications="$data/applications"
if [ -d "$applications" ]; then
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$applications" \
            || echo "uninstall-service: warning: update-desktop-database $applications failed" >&2
        if [ -f "$applications/mimeinfo.cache" ] && ! grep -q '=' "$applications/mimeinfo.cache"; then
            rm -f -- "$applications/mimeinfo.cache"
        fi
    elif [ -f "$applications/mimeinfo.cache" ] && grep -q 'org\.example\.\(MailComposer\|TextEditor\)\.desktop' "$applications/mimeinfo.cache"; then
        echo "uninstall-service: note: $applications/mimeinfo.cache still names the example apps (no update-desktop-database here to rewrite it); desktops skip entries whose file is gone"
    fi
fi
# The icon cache, where the installer refreshed one (only beside an index.theme).
icons="$data/icons/hicolor"
if [ -f "$icons/index.theme" ] && [ -f "$icons/icon-theme.cache" ]; then
    for icon_cache_tool in gtk4-update-icon-cache gtk-update-icon-cache; do
        command -v "$icon_cache_tool" >/dev/null 2>&1 || continue
        "$icon_cache_tool" -q -f "$icons" || echo "uninstall-service: warning: $icon_cache_tool $icons failed" >&2
        break
    done
fi
if $manager; then systemctl --user daemon-reload >/dev/null 2>&1 || true; fi
echo "uninstall-service: removed $removed installed files"

kept=("$state/baton" "$config/baton" "$data/org.example.MailComposer" "$state/org.example.MailComposer"
      "$state/org.example.TextEditor")
if $purge; then
    for folder in "${kept[@]}"; do
        if [ -e "$folder" ]; then
            rm -rf -- "$folder"
            echo "uninstall-service: deleted $folder"
        fi
    done
    echo "uninstall-service: purged batond's state, this device's identity key and pairings (pair again to use Baton), MailComposer's data and TextEditor's saved windows (never your documents)"
else
    for folder in "${kept[@]}"; do
        if [ -e "$folder" ]; then echo "uninstall-service: kept $folder (--purge deletes it)"; fi
    done
fi
