#!/usr/bin/env bash
# Installs what Baton needs on a fresh Debian machine, then checks the Swift toolchain.
# Idempotent: packages already present are not reinstalled, and apt runs only when one is missing.
set -euo pipefail

packages=(
    pkg-config          # finds gtk4 for the BatonGtk C targets
    libgtk-4-dev        # GTK 4 headers and libraries
    libadwaita-1-dev    # libadwaita 1.2 for MailComposer (BatonGtk itself needs only GTK)
    xvfb xauth          # virtual display for the GTK tests (xvfb-run)
    dbus dbus-x11       # session bus for tests and the service
    libglib2.0-dev      # GIO headers (GDBus, GDesktopAppInfo) for the CGLib module
    libx11-dev          # Xlib for batond: the active window (EWMH) for recent documents' offers
    libxfixes-dev       # XFixes for batond: selection owner notifications, for the clipboard
    xclip               # copies and pastes on the X11 clipboard in the clipboard tests
    libwayland-dev      # libwayland-client for batond: the Wayland clipboard (wlr-data-control)
    wl-clipboard        # wl-copy and wl-paste: copies and pastes on the Wayland clipboard in the clipboard tests
    libglib2.0-bin      # gdbus: scripts/run.sh and the service tests call it
    glib-networking     # TLS for GIO (GTlsConnection): batond's links to other devices
    avahi-daemon        # DNS-SD (_baton._tcp) for batond, and the two-namespace test
    iproute2            # ip netns and veth for the two-namespace test
    imagemagick         # screenshots of windows under Xvfb (import -window root)
    xdotool             # scripted typing into windows under Xvfb
    x11-utils           # xprop: the startup id an app was activated with, in the recent document tests
    sway                # headless Wayland compositor for the Wayland GTK tests (run as an unprivileged user)
    wtype               # virtual keyboard and scripted typing under sway
    grim                # screenshots of the sway session (wlr-screencopy)
    bubblewrap          # a real sandbox (what Flatpak uses) for the sandboxed-app identity tests
    desktop-file-utils  # desktop-file-validate: the shipped desktop entries are checked
    appstream           # appstreamcli validate: the example apps' AppStream metainfo is checked
    librsvg2-bin        # rsvg-convert: the shipped icons are checked
    syncthing           # two real Syncthings share a folder in the document continuation tests
    curl                # the Syncthing test fixture pauses a folder through Syncthing's REST API
    util-linux          # unshare: a device that does not see another's folder in the document tests
    openssl             # a test CA and an HTTPS server (s_server) for the domain verification tests
    chromium            # a real browser with the Baton extension for the web page tests
    firefox-esr         # the same tests in Firefox: ESR loads the unsigned extension (release Firefox would not)
    evince              # Document Viewer, a real app that does not adopt Baton: a PDF continued in Evince on the second device
    openbox             # a window manager that says which window is active (EWMH), for the recent documents' tests
    gedit               # a real app that does not adopt Baton, for the recent documents' two-device test
    gnome-text-editor   # a real app with a recent list of its own (org.gnome.TextEditor/recently-used.xbel)
    kdeconnect          # two real kdeconnectd (one a phone) for the phone tests (Qt and KDE Frameworks: ~37 MB)
    iptables            # two home routers (masquerade, nothing in) for the relay test across NATs
    dbus-user-session   # the user dbus.socket that systemd-analyze verify --user needs for batond's unit
    man-db              # man: the installed manual pages are rendered and found
    ca-certificates     # apt and curl fetch over https on a minimal system
    gobject-introspection   # g-ir-scanner and g-ir-compiler: libbaton's Baton-1.0.gir and .typelib (scripts/gir.sh)
    libgirepository1.0-dev  # GObject-2.0.gir and the other .gir files g-ir-scanner includes
    python3-gi          # PyGObject: the Python notes example (Examples/Python) and its tests
    gir1.2-gtk-4.0      # GTK 4's typelib for PyGObject apps
    gcc                 # cc: the C notes example (Examples/C), built by its tests and install-service.sh
    gjs                 # GNOME's JavaScript: the GJS notes example (Examples/JavaScript) and its tests
    valac               # Vala and vapigen: libbaton's baton-1.vapi, and the Vala program that checks it
    gi-docgen           # libbaton's GObject reference from its .gir (scripts/docs.sh)
    dpkg-dev debhelper  # dpkg-buildpackage and dh: the Debian packages (scripts/package.sh)
    lintian             # checks the built packages (scripts/package.sh)
    debootstrap         # a fresh Debian 12 to install the packages into (scripts/tests/packages.sh)
)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Syncthing's relay server for the relay tests, unpacked from Debian's syncthing-relaysrv into
# .build/strelaysrv rather than installed: the package's own service would join the public
# relay pool.
if [ ! -x .build/strelaysrv/usr/bin/strelaysrv ] && [ -f Package.swift ]; then
    relay_work=$(mktemp -d)
    if (cd "$relay_work" && apt-get download -qq syncthing-relaysrv >/dev/null 2>&1); then
        mkdir -p .build/strelaysrv
        dpkg-deb -x "$relay_work"/syncthing-relaysrv_*.deb .build/strelaysrv
    else
        echo "setup: could not download syncthing-relaysrv (apt-get download); the relay tests will say so" >&2
    fi
    rm -rf "$relay_work"
fi

if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        if [ -x "$candidate/swift" ]; then export PATH="$candidate:$PATH"; fi
    done
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "setup: no Swift toolchain found. Install Swift 6.1 or newer (swift.org) and put it on PATH." >&2
    exit 1
fi

# The Debian package that provides the shared library `$1` (a file name as ldd prints it), or
# nothing when none is known. Several names: the first this system's apt knows is chosen.
_baton_setup_package_for_library() {
    local names
    case "$1" in
        libncursesw.so.6*) names="libncursesw6" ;;
        libncurses.so.6*) names="libncurses6" ;;
        libncursesw.so.5* | libncurses.so.5*) names="libncurses5" ;;
        libtinfo.so.6*) names="libtinfo6" ;;
        libtinfo.so.5*) names="libtinfo5" ;;
        libedit.so.2*) names="libedit2" ;;
        libxml2.so.16*) names="libxml2-16" ;;
        libxml2.so.2*) names="libxml2" ;;
        libcurl.so.4*) names="libcurl4t64 libcurl4" ;;
        libz3.so.4*) names="libz3-4" ;;
        libz3.so*) names="libz3-dev" ;;
        libstdc++.so.6*) names="libstdc++6" ;;
        libgcc_s.so.1*) names="libgcc-s1" ;;
        libpython3.*.so*) names=$(printf '%s' "$1" | sed -E 's/^lib(python3\.[0-9]+).*/lib\1/') ;;
        libsqlite3.so.0*) names="libsqlite3-0" ;;
        libz.so.1*) names="zlib1g" ;;
        libuuid.so.1*) names="libuuid1" ;;
        libbsd.so.0*) names="libbsd0" ;;
        libssl.so.3* | libcrypto.so.3*) names="libssl3t64 libssl3" ;;
        libbfd-*.so* | libctf.so* | libopcodes-*.so*) names="binutils" ;;
        *) return 0 ;;
    esac
    local name
    for name in $names; do
        if apt-cache show --no-all-versions "$name" >/dev/null 2>&1; then
            echo "$name"
            return 0
        fi
    done
    echo "${names%% *}"
}

# Says why the `swift` on PATH cannot start, as precisely as can be told: its output, the
# shared libraries the loader does not find (ldd on swift-frontend beside it and on swift
# itself), and the Debian packages that hold them. `$1` is swift's exit status, `$2` its
# output (standard output and error together).
_baton_setup_toolchain_failure() {
    local status=$1 output=$2
    local swift_path resolved
    swift_path=$(command -v swift)
    resolved=$(readlink -f "$swift_path" 2>/dev/null || echo "$swift_path")
    if [ "$status" -ne 0 ]; then
        echo "setup: the Swift toolchain on PATH ($swift_path) does not run: 'swift --version' exited with status $status." >&2
    else
        echo "setup: the Swift toolchain on PATH ($swift_path) printed no version: 'swift --version' did not say \"Swift version\"." >&2
    fi
    if [ -n "$output" ]; then
        echo "setup: it said:" >&2
        printf '%s\n' "$output" | head -n 5 | sed 's/^/    /' >&2
    fi

    local missing=() candidate library
    local candidates=("$(dirname "$resolved")/swift-frontend" "$(dirname "$swift_path")/swift-frontend" "$resolved")
    if command -v ldd >/dev/null 2>&1; then
        for candidate in "${candidates[@]}"; do
            [ -f "$candidate" ] || continue
            while read -r library; do
                [ -n "$library" ] && missing+=("$library")
            done < <(ldd "$candidate" 2>/dev/null | awk '$2 == "=>" && $3 == "not" && $4 == "found" { print $1 }' || true)
        done
    fi
    # The loader's own words, for a library ldd did not report (or without ldd).
    while read -r library; do
        [ -n "$library" ] && missing+=("$library")
    done < <(printf '%s\n' "$output" | sed -nE 's/.*error while loading shared libraries: ([^:]+):.*/\1/p')

    if ((${#missing[@]} == 0)); then
        echo "setup: no missing shared library was found. Check that the toolchain was built for this" >&2
        echo "setup: system and that what it needs is installed (see swift.org/install for Debian; it" >&2
        echo "setup: includes binutils libc6-dev libcurl4 libedit2 libgcc-12-dev libncurses6 libpython3-dev" >&2
        echo "setup: libsqlite3-0 libstdc++-12-dev libxml2 libz3-dev pkg-config tzdata zlib1g-dev)." >&2
        return 0
    fi
    local unique=() packages=() unknown=() package
    readarray -t unique < <(printf '%s\n' "${missing[@]}" | sort -u)
    for library in "${unique[@]}"; do
        package=$(_baton_setup_package_for_library "$library")
        if [ -n "$package" ]; then
            [[ " ${packages[*]} " == *" $package "* ]] || packages+=("$package")
        else
            unknown+=("$library")
        fi
    done
    echo "setup: missing shared libraries: ${unique[*]}" >&2
    if ((${#packages[@]})); then
        echo "setup: install the Debian packages that provide them: sudo apt-get install ${packages[*]}" >&2
    fi
    if ((${#unknown[@]})); then
        echo "setup: no Debian package is known here for ${unknown[*]}: 'apt-file search <library>' finds the one that holds it." >&2
    fi
}

# A `swift` on PATH may still not start (a shared library missing, as on a fresh machine
# without the toolchain's dependencies): run it once, and stop here saying what is missing
# rather than let the build fail later. This one run is all the check costs when it works.
swift_version_output=""
swift_version_status=0
swift_version_output=$(swift --version 2>&1) || swift_version_status=$?
swift_version_line=""
while IFS= read -r swift_version_candidate; do
    case "$swift_version_candidate" in
        *"Swift version"*) swift_version_line=$swift_version_candidate; break ;;
    esac
done <<<"$swift_version_output"
if [ "$swift_version_status" -ne 0 ] || [ -z "$swift_version_line" ]; then
    _baton_setup_toolchain_failure "$swift_version_status" "$swift_version_output" || true
    exit 1
fi
unset -f _baton_setup_package_for_library _baton_setup_toolchain_failure
unset swift_version_output swift_version_status swift_version_candidate
# Package.swift says swift-tools-version 6.1: an older toolchain runs but cannot build.
if [[ "$swift_version_line" =~ Swift\ version\ ([0-9]+)\.([0-9]+) ]] \
    && { [ "${BASH_REMATCH[1]}" -lt 6 ] || { [ "${BASH_REMATCH[1]}" -eq 6 ] && [ "${BASH_REMATCH[2]}" -lt 1 ]; }; }; then
    echo "setup: Baton needs Swift 6.1 or newer; the toolchain on PATH is ${BASH_REMATCH[1]}.${BASH_REMATCH[2]} ($swift_version_line). Install a newer one from swift.org." >&2
    exit 1
fi
echo "setup: ready ($swift_version_line)"
unset swift_version_line
