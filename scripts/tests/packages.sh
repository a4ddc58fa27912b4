#!/usr/bin/env bash
# Installs Baton's Debian packages into a fresh minimal Debian 12 (debootstrap --variant=minbase,
# in .build-package/chroot) with apt, which fetches their dependencies, and checks them there
# (scripts/tests/packages/checks.sh, run inside): the versions the programs print; that every
# ELF file they install loads only libraries Debian's packages or ours hold (ldd, dpkg -S); as a
# normal user on a private session bus, that `baton status` starts batond by D-Bus activation
# and `baton doctor` runs, and that MailComposer under Xvfb publishes its draft; that two users'
# batonds, paired with `baton pair`, stay paired with byte-identical pairing files through
# `apt-get install --reinstall` and `dpkg -i`; that `apt-get purge` leaves none of the packages'
# files and that an install and purge leave the system as they found it; and, on this machine,
# that Debian's Chromium and Firefox ESR load webext-baton's extension as the package lays it
# out (scripts/tests/packages/browsers.sh, 1.5 min). Prints PASS/FAIL
# lines, then the times and sizes; exits non-zero when a check fails. Skips (exit 0) unless
# run as root with debootstrap.
# Takes about 3 minutes after scripts/package.sh (which it runs first, unless given --debs):
# debootstrap 25 s the first time, then a pristine copy kept in .build-package/ is unpacked
# (5 s); apt with its dependencies about 40 s. Every command in the root runs in a mount and
# PID namespace of its own (unshare): no mount or process outlives it.
set -euo pipefail
cd "$(dirname "$0")/../.."
tree=$PWD

usage() {
    cat <<'EOF'
usage: scripts/tests/packages.sh [--debs DIR] [--keep] [--break WHAT]
  --debs DIR    check the packages in DIR (default: build them with scripts/package.sh into dist/)
  --keep        keep the root (.build-package/chroot) afterwards
  --break WHAT  break the installed packages on purpose, to see the checks fail: dbus-service
                (removes batond's D-Bus service file) or runpath (makes libswiftCore.so unfindable)
EOF
}

debs=""
keep=false
break_what=""
while (($#)); do
    case "$1" in
        --debs) debs=${2:-}; [ -n "$debs" ] || { usage >&2; exit 2; }; shift 2 ;;
        --keep) keep=true; shift ;;
        --break) break_what=${2:-}; [ -n "$break_what" ] || { usage >&2; exit 2; }; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "packages: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
done
case "$break_what" in "" | dbus-service | runpath) ;; *) usage >&2; exit 2 ;; esac

for tool in debootstrap unshare ip chroot findmnt; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "packages: SKIP: $tool is not installed (apt-get install debootstrap util-linux iproute2)"
        exit 0
    fi
done
if [ "$(id -u)" -ne 0 ]; then
    echo "packages: SKIP: not root (debootstrap, chroot and namespaces need root)"
    exit 0
fi

started=$(date +%s)
work=$tree/.build-package
root=$work/chroot
pristine=$work/debootstrap-bookworm-minbase.tar
mirror=http://deb.debian.org/debian
failures=0
failed_checks=()
mkdir -p "$work"

# Mounts inside $root, as the host sees them (none, while every command runs in a namespace).
mounts_in_root() {
    findmnt -rn -o TARGET | awk -v root="$root" 'index($0, root "/") == 1 || $0 == root'
}

remove_root() {
    [ -e "$root" ] || return 0
    if [ -n "$(mounts_in_root)" ]; then
        echo "packages: FAIL: $root still has mounts, so it is left alone: $(mounts_in_root | tr '\n' ' ')" >&2
        return 1
    fi
    rm -rf "$root"
}

cleanup() {
    if $keep; then
        echo "packages: the root is kept in $root"
    else
        remove_root || true
    fi
}
trap cleanup EXIT

# Runs a command in the root: in a private mount namespace (/dev, /dev/pts, a tmpfs /dev/shm,
# proc, sysfs, a tmpfs /run) and a PID namespace, whose processes all end when it does.
# --own-network: in a network namespace of its own too, with loopback only.
in_root() {
    local network=()
    if [ "$1" = --own-network ]; then network=(--net); shift; fi
    unshare --mount --propagation private --pid --fork --kill-child "${network[@]}" -- /bin/sh -c '
        set -e
        root=$1; shift
        [ "$1" != --own-network ] || { ip link set lo up; shift; }
        mount --bind /dev "$root/dev"
        mount --bind /dev/pts "$root/dev/pts"
        mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
        mount -t proc proc "$root/proc"
        mount -t sysfs sysfs "$root/sys"
        mount -t tmpfs -o mode=0755,nosuid,nodev run "$root/run"
        mkdir -p "$root/run/lock" "$root/run/user"
        exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
    ' sh "$root" ${network:+--own-network} "$@"
}

# Runs a step of checks.sh in the root, counting a failure under NAME.
check() {
    local name=$1
    shift
    echo "== $name"
    if ! in_root "$@"; then
        failures=$((failures + 1))
        failed_checks+=("$name")
    fi
}

# The packages.
if [ -z "$debs" ]; then
    echo "packages: building the packages (scripts/package.sh)"
    bash scripts/package.sh
    debs=$tree/dist
fi
debs=$(cd "$debs" && pwd)
version=$(scripts/baton-version.sh)
# The packages are those scripts/package.sh built, of this version; baton among them.
deb_files=()
package_names=()
for file in "$debs"/*_"${version}"_*.deb; do
    [ -f "$file" ] || continue
    deb_files+=("$file")
    package_names+=("$(dpkg-deb -f "$file" Package)")
done
if [[ " ${package_names[*]} " != *" baton "* ]]; then
    echo "packages: FAIL: no baton_${version}_*.deb in $debs" >&2
    exit 1
fi

# 1. A fresh Debian 12 root, from the pristine copy of debootstrap's result when there is one.
remove_root
phase=$(date +%s)
if [ -f "$pristine" ]; then
    mkdir -p "$root"
    tar -xpf "$pristine" -C "$root"
    how="unpacked from $(basename "$pristine")"
else
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
        tail -n 20 "$work/debootstrap.log" >&2
        echo "packages: FAIL: debootstrap failed; its log is $work/debootstrap.log" >&2
        exit 1
    }
    tar -cpf "$pristine.new" -C "$root" . && mv "$pristine.new" "$pristine"
    how="debootstrap --variant=minbase bookworm (kept as $(basename "$pristine"))"
fi
debootstrap_time=$(($(date +%s) - phase))
echo "packages: the root: $how in $debootstrap_time s"

cp /etc/resolv.conf "$root/etc/resolv.conf"
rm -f "$root/etc/apt/sources.list"
if grep -qs bookworm /etc/apt/sources.list.d/debian.sources; then
    cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/debian.sources"
elif grep -qs '^deb .*bookworm' /etc/apt/sources.list; then
    grep '^deb .*bookworm' /etc/apt/sources.list >"$root/etc/apt/sources.list"
else
    cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
# As in any chroot: maintainer scripts start no service (avahi-daemon, dbus) here.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
if in_root sh -c 'command -v swift || [ -e /opt/swift ]' >/dev/null; then
    echo "packages: FAIL: the root has a Swift toolchain" >&2
    exit 1
fi
install -d "$root/root/baton-debs" "$root/root/bin"
cp "${deb_files[@]}" "$root/root/baton-debs/"
install -m 0755 scripts/tests/packages/checks.sh "$root/root/bin/checks.sh"
in_root sh -c 'useradd -m -u 1000 -s /bin/bash person && useradd -m -u 1001 -s /bin/bash friend'

# 2. apt: our packages with their dependencies.
in_root apt-get update -qq
in_root /root/bin/checks.sh snapshot before-install >/dev/null
phase=$(date +%s)
in_root sh -c 'cd /root/baton-debs && apt-get install -y -q ./*.deb' >"$work/apt-install.log" 2>&1 || {
    tail -n 30 "$work/apt-install.log" >&2
    echo "packages: FAIL: apt-get install ./*.deb failed; its log is $work/apt-install.log" >&2
    exit 1
}
install_time=$(($(date +%s) - phase))
newly=$(grep -c '^Setting up ' "$work/apt-install.log" || true)
echo "packages: apt-get install -y ./*.deb: $install_time s, $newly packages set up (ours and their dependencies)"
sizes=$(for file in "${deb_files[@]}"; do
    name=$(dpkg-deb -f "$file" Package)
    printf '  %-22s %7d KiB deb, %7d KiB installed\n' "$name" "$(($(stat -c %s "$file") / 1024))" \
        "$(in_root dpkg-query -W -f='${Installed-Size}' "$name")"
done)
echo "$sizes"
echo "packages: test tools in the root (not ours): xvfb xauth jq"
in_root apt-get install -y -q --no-install-recommends xvfb xauth jq >"$work/apt-tools.log" 2>&1 || {
    tail -n 20 "$work/apt-tools.log" >&2
    exit 1
}

case "$break_what" in
    dbus-service) echo "packages: --break: removing /usr/share/dbus-1/services/org.baton.Daemon.service"
                  rm "$root/usr/share/dbus-1/services/org.baton.Daemon.service" ;;
    runpath) echo "packages: --break: moving libswiftCore.so away"
             mv "$root/usr/lib/x86_64-linux-gnu/baton/swift/libswiftCore.so" "$root/root/" ;;
esac

# 3. The checks.
check "a. versions, the user unit enabled" /root/bin/checks.sh installed
check "b. libraries (ldd, dpkg -S)" /root/bin/checks.sh libraries
check "c+d. D-Bus activation, baton doctor, MailComposer under Xvfb" --own-network /root/bin/checks.sh desktop
echo "== e. reinstalling keeps the pairings"
if in_root --own-network /root/bin/checks.sh pair; then
    in_root sh -c 'cd /root/baton-debs && apt-get install -y -q --reinstall ./baton_*.deb' >"$work/apt-reinstall.log" 2>&1 \
        && echo "PASS: apt-get install --reinstall ./baton_${version}_*.deb" \
        || { echo "FAIL: apt-get install --reinstall: $(tail -n 5 "$work/apt-reinstall.log")"; failures=$((failures + 1)); }
    in_root sh -c 'cd /root/baton-debs && dpkg -i ./baton_*.deb' >"$work/dpkg-upgrade.log" 2>&1 \
        && echo "PASS: dpkg -i ./baton_${version}_*.deb over the installed one" \
        || { echo "FAIL: dpkg -i: $(tail -n 5 "$work/dpkg-upgrade.log")"; failures=$((failures + 1)); }
    check "e. still paired after the reinstalls" --own-network /root/bin/checks.sh paired
else
    failures=$((failures + 1))
    failed_checks+=("e. pairing")
fi

echo "== f. purge leaves nothing"
purge() {
    in_root apt-get purge -y -q "${package_names[@]}" >"$work/apt-purge.log" 2>&1 || {
        echo "FAIL: apt-get purge: $(tail -n 5 "$work/apt-purge.log")"
        failures=$((failures + 1))
    }
}
echo "packages: $(in_root /root/bin/checks.sh list) paths installed by the ${#package_names[@]} packages"
purge
check "f. first purge: no installed path left" /root/bin/checks.sh purged
in_root /root/bin/checks.sh snapshot first-purge >/dev/null
check "f. first purge: nothing of Baton's left unowned" /root/bin/checks.sh compare --new-only before-install first-purge
in_root sh -c 'cd /root/baton-debs && apt-get install -y -q ./*.deb' >"$work/apt-install-2.log" 2>&1 || {
    echo "FAIL: the second apt-get install: $(tail -n 5 "$work/apt-install-2.log")"
    failures=$((failures + 1))
}
in_root /root/bin/checks.sh list >/dev/null
purge
check "f. second purge: no installed path left" /root/bin/checks.sh purged
in_root /root/bin/checks.sh snapshot second-purge >/dev/null
check "f. install and purge again change nothing" /root/bin/checks.sh compare first-purge second-purge
echo "packages: the users' own files in /home (~/.config/baton, ~/.local/state/baton) are theirs: purge leaves them"

# 4. The browsers on this machine (Debian's Chromium and Firefox ESR) with webext-baton's files
# where the package puts them: both load the extension as they are.
echo "== g. Chromium and Firefox ESR load webext-baton's extension"
if ! bash scripts/tests/packages/browsers.sh "$debs"; then
    failures=$((failures + 1))
    failed_checks+=("g. browsers")
fi

# 5. Summary.
echo
echo "packages: summary"
echo "  root:     $debootstrap_time s ($how)"
echo "  install:  $install_time s (apt-get install -y ./*.deb, $newly packages set up)"
echo "$sizes"
echo "  total:    $(($(date +%s) - started)) s"
if [ "$failures" -gt 0 ]; then
    echo "packages: FAIL: $failures checks failed: $(printf '%s; ' "${failed_checks[@]}")" >&2
    exit 1
fi
echo "packages: all checks passed"
