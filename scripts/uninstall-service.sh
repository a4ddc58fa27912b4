#!/usr/bin/env bash
# Removes what scripts/install-service.sh installed for the current user, as that script
# lists it (`install-service.sh --list-files`, with the same PREFIX, HOME and XDG_* variables):
# the binaries, the D-Bus service file, the systemd user unit and its link in
# graphical-session.target.wants/, the autostart entry, batond's and MailComposer's desktop
# entries, the icons, the shell completions and the manual pages. A batond running from the
# installed binary is stopped first (through systemd when a user manager runs).
#
# The user's own data stays: batond's state, this device's identity key and pairings
# (so the other devices stay paired), MailComposer's mail and windows. `--purge` deletes
# those too, and says which folders it deleted.
set -euo pipefail
cd "$(dirname "$0")/.."

purge=false
while (($#)); do
    case "$1" in
        --purge) purge=true; shift ;;
        -h | --help)
            echo "usage: scripts/uninstall-service.sh [--purge]"
            echo "  --purge  also delete batond's state, this device's identity and pairings, and MailComposer's data"
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
    elif [ -d "$path" ] && [ "$(basename "$path")" = Baton_MailComposer.resources ]; then
        rm -rf -- "$path"
    else
        continue
    fi
    removed=$((removed + 1))
done
# The unit's wants folder, when the link was all it held.
rmdir "$config/systemd/user/graphical-session.target.wants" 2>/dev/null || true
if $manager; then systemctl --user daemon-reload >/dev/null 2>&1 || true; fi
echo "uninstall-service: removed $removed installed files"

kept=("$state/baton" "$config/baton" "$data/org.example.MailComposer" "$state/org.example.MailComposer")
if $purge; then
    for folder in "${kept[@]}"; do
        if [ -e "$folder" ]; then
            rm -rf -- "$folder"
            echo "uninstall-service: deleted $folder"
        fi
    done
    echo "uninstall-service: purged batond's state, this device's identity key and pairings (pair again to use Baton), and MailComposer's data"
else
    for folder in "${kept[@]}"; do
        if [ -e "$folder" ]; then echo "uninstall-service: kept $folder (--purge deletes it)"; fi
    done
fi
