#!/usr/bin/env bash
# Builds batond, baton, the Baton app, the browser host and the example apps (MailComposer,
# TextEditor) in release mode and installs them for the current user, so that batond runs with the
# graphical session:
#   binaries              $PREFIX/bin (PREFIX is ~/.local by default): batond, baton, baton-app,
#                         baton-browser-host, MailComposer, TextEditor (each example with its
#                         Baton_NAME.resources folder)
#   the Baton app         $XDG_DATA_HOME/applications/org.baton.Baton.desktop (in the launcher)
#   D-Bus activation      $XDG_DATA_HOME/dbus-1/services/org.baton.Daemon.service
#   systemd user unit     $XDG_CONFIG_HOME/systemd/user/batond.service, enabled: linked from
#                         graphical-session.target.wants/ (`systemctl --user enable` when a user
#                         manager runs, the same link made here when none does)
#   autostart entry       $XDG_CONFIG_HOME/autostart/org.baton.Daemon.desktop, for sessions that
#                         do not start systemd user units (systemd-run sessions skip it)
#   batond's entry, icon  $XDG_DATA_HOME/applications/org.baton.Daemon.desktop (hidden from menus),
#                         $XDG_DATA_HOME/icons/hicolor/{scalable,symbolic}/apps/org.baton.Daemon*.svg
#   the examples          for NAME in MailComposer and TextEditor:
#                         $XDG_DATA_HOME/applications/org.example.NAME.desktop (its desktop
#                         entry: Exec= and its actions' Exec= name the installed program),
#                         $XDG_DATA_HOME/dbus-1/services/org.example.NAME.service,
#                         $XDG_DATA_HOME/icons/hicolor/{scalable,symbolic}/apps/org.example.NAME*.svg,
#                         $XDG_DATA_HOME/metainfo/org.example.NAME.metainfo.xml (AppStream)
#   web pages             the browser extension's native messaging host: its desktop entry
#                         $XDG_DATA_HOME/applications/org.baton.BrowserHost.desktop (hidden from
#                         menus; batond verifies the host by it), the host manifest
#                         org.baton.browser_host.json (its path is the installed baton-browser-host)
#                         for Chromium in $XDG_CONFIG_HOME/chromium/NativeMessagingHosts/, Google
#                         Chrome in $XDG_CONFIG_HOME/google-chrome/NativeMessagingHosts/ and Firefox
#                         in ~/.mozilla/native-messaging-hosts/, and the extension itself (Browser/
#                         extension) in $XDG_DATA_HOME/baton/browser-extension/, for the person to
#                         load: chrome://extensions, Developer mode, "Load unpacked"; in Firefox ESR or
#                         Developer Edition, packed as an .xpi with xpinstall.signatures.required off
#                         (release Firefox takes only signed ones; see docs/web.md).
#                         Firefox knows an extension by the id its manifest gives, which anyone may
#                         give theirs: the installed extension gets an id of this installation's
#                         own (a new random {UUID}, kept by later installs), the only one the
#                         Firefox host manifest allows; --firefox-extension-id pins another
#   caches                update-desktop-database refreshes $XDG_DATA_HOME/applications/mimeinfo.cache
#                         (when installed), so MailComposer is known as a mailto: handler and
#                         TextEditor as an editor of text/plain and text/markdown; the
#                         icon cache is refreshed only where $XDG_DATA_HOME/icons/hicolor has an
#                         index.theme (GTK ignores a cache without one). Neither is in --list-files:
#                         they are shared, and the uninstaller refreshes them rather than delete them.
#   completions           bash: $XDG_DATA_HOME/bash-completion/completions/, zsh:
#                         $XDG_DATA_HOME/zsh/site-functions/, fish: $XDG_CONFIG_HOME/fish/completions/
#   manual pages          $PREFIX/share/man/man1/baton.1 and batond.1
#   libbaton              the GObject library for C, Python, JavaScript and Vala apps (docs/gobject.md):
#                         $PREFIX/lib/libbaton-1.so.0 (and the link libbaton-1.so), its header in
#                         $PREFIX/include/baton-1/baton/, $PREFIX/lib/pkgconfig/baton-1.pc,
#                         $PREFIX/share/gir-1.0/Baton-1.0.gir and
#                         $PREFIX/lib/girepository-1.0/Baton-1.0.typelib (made by scripts/gir.sh; both
#                         name the installed library by its path, so no LD_LIBRARY_PATH is needed)
#   Vala                  $PREFIX/share/vala/vapi/baton-1.vapi and baton-1.deps (vapigen's)
#   the Python example    $XDG_DATA_HOME/baton/examples/python/notes.py, its entry
#                         $XDG_DATA_HOME/applications/org.example.PyNotes.desktop, whose Exec= sets
#                         GI_TYPELIB_PATH to the typelib's folder (GI looks only in the system's),
#                         and its icon $XDG_DATA_HOME/icons/hicolor/scalable/apps/org.example.PyNotes.svg
#   the GJS example       $XDG_DATA_HOME/baton/examples/javascript/notes.js, its entry
#                         org.example.JSNotes.desktop (Exec= sets GI_TYPELIB_PATH) and icon
#   the C example         $PREFIX/bin/baton-notes, compiled here (cc, with the installed baton-1.pc),
#                         its entry org.example.CNotes.desktop and icon org.example.CNotes.svg
# XDG_DATA_HOME and XDG_CONFIG_HOME default to ~/.local/share and ~/.config. With HOME and
# those set elsewhere, everything goes there (the tests install into a temporary HOME).
# MailComposer's entry declares that it handles mailto: links (MimeType=x-scheme-handler/mailto),
# TextEditor's that it edits text/plain and text/markdown, but this script makes neither the
# default handler: that is the user's choice, made in the desktop's settings or with
# `xdg-mime default org.example.MailComposer.desktop x-scheme-handler/mailto`, never run here.
# scripts/uninstall-service.sh removes all of it; `--list-files` prints what is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
usage: scripts/install-service.sh [--binaries DIR] [--firefox-extension-id ID] [--list-files]
  --binaries DIR  install the batond, baton, baton-app, baton-browser-host, MailComposer, TextEditor and
                  libbaton-1.so already built in DIR (such as `swift build --show-bin-path`) instead of
                  building them in release mode
  --firefox-extension-id ID
                  the only Firefox extension id allowed to talk to the browser host (a {UUID} or
                  name@domain): the id of a Baton extension your organisation signed. By default
                  the installation makes one of its own, which the installed extension carries
  --list-files    print every path the installation makes, one a line, and exit
EOF
}

binaries=""
gecko_id=""
list_only=false
while (($#)); do
    case "$1" in
        --binaries) binaries=${2:-}; [ -n "$binaries" ] || { usage >&2; exit 2; }; shift 2 ;;
        --binaries=*) binaries=${1#--binaries=}; shift ;;
        --firefox-extension-id) gecko_id=${2:-}; [ -n "$gecko_id" ] || { usage >&2; exit 2; }; shift 2 ;;
        --firefox-extension-id=*) gecko_id=${1#--firefox-extension-id=}; shift ;;
        --list-files) list_only=true; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install-service: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
done

prefix="${PREFIX:-$HOME/.local}"
bindir="$prefix/bin"
mandir="$prefix/share/man"
data="${XDG_DATA_HOME:-$HOME/.local/share}"   # where the session bus and desktops look
config="${XDG_CONFIG_HOME:-$HOME/.config}"
unitdir="$config/systemd/user"
wants="$unitdir/graphical-session.target.wants"
resources=Sources/batond/Resources
examples=(MailComposer TextEditor)
programs=(batond baton baton-app baton-browser-host "${examples[@]}")
# The browser extension and its native messaging host manifests: one for each browser family,
# in the folders Chromium, Google Chrome and Firefox read for the user.
browser_host=org.baton.browser_host
extension_dir="$data/baton/browser-extension"
extension_files=(manifest.json background.js)
chromium_hosts=("$config/chromium/NativeMessagingHosts" "$config/google-chrome/NativeMessagingHosts")
firefox_hosts="$HOME/.mozilla/native-messaging-hosts"
# libbaton, the GObject library, and its Python example.
libdir="$prefix/lib"
baton_headers=(baton.h baton-activity.h baton-application.h baton-document.h baton-enums.h baton-widget.h)
python_examples="$data/baton/examples/python"
js_examples="$data/baton/examples/javascript"

# Every path the installation makes (a folder only for each example's resources); the
# uninstaller removes exactly these.
installed_files() {
    local program example
    for program in "${programs[@]}"; do echo "$bindir/$program"; done
    for example in "${examples[@]}"; do echo "$bindir/Baton_$example.resources"; done
    echo "$data/dbus-1/services/org.baton.Daemon.service"
    echo "$unitdir/batond.service"
    echo "$wants/batond.service"
    echo "$config/autostart/org.baton.Daemon.desktop"
    echo "$data/applications/org.baton.Daemon.desktop"
    echo "$data/applications/org.baton.Baton.desktop"
    echo "$data/applications/org.baton.BrowserHost.desktop"
    for folder in "${chromium_hosts[@]}" "$firefox_hosts"; do echo "$folder/$browser_host.json"; done
    for file in "${extension_files[@]}"; do echo "$extension_dir/$file"; done
    echo "$data/icons/hicolor/scalable/apps/org.baton.Daemon.svg"
    echo "$data/icons/hicolor/symbolic/apps/org.baton.Daemon-symbolic.svg"
    for example in "${examples[@]}"; do
        echo "$data/applications/org.example.$example.desktop"
        echo "$data/dbus-1/services/org.example.$example.service"
        echo "$data/icons/hicolor/scalable/apps/org.example.$example.svg"
        echo "$data/icons/hicolor/symbolic/apps/org.example.$example-symbolic.svg"
        echo "$data/metainfo/org.example.$example.metainfo.xml"
    done
    echo "$libdir/libbaton-1.so.0"
    echo "$libdir/libbaton-1.so"
    for header in "${baton_headers[@]}"; do echo "$prefix/include/baton-1/baton/$header"; done
    echo "$libdir/pkgconfig/baton-1.pc"
    echo "$prefix/share/gir-1.0/Baton-1.0.gir"
    echo "$libdir/girepository-1.0/Baton-1.0.typelib"
    echo "$prefix/share/vala/vapi/baton-1.vapi"
    echo "$prefix/share/vala/vapi/baton-1.deps"
    echo "$python_examples/notes.py"
    echo "$data/applications/org.example.PyNotes.desktop"
    echo "$data/icons/hicolor/scalable/apps/org.example.PyNotes.svg"
    echo "$js_examples/notes.js"
    echo "$data/applications/org.example.JSNotes.desktop"
    echo "$data/icons/hicolor/scalable/apps/org.example.JSNotes.svg"
    echo "$bindir/baton-notes"
    echo "$data/applications/org.example.CNotes.desktop"
    echo "$data/icons/hicolor/scalable/apps/org.example.CNotes.svg"
    for program in baton batond; do
        echo "$data/bash-completion/completions/$program"
        echo "$data/zsh/site-functions/_$program"
        echo "$config/fish/completions/$program.fish"
        echo "$mandir/man1/$program.1"
    done
}

if $list_only; then
    installed_files
    exit 0
fi

# The Firefox extension id the browser host allows: the one asked for, else the one an earlier
# install made (in the installed extension's manifest), else a new random one. Never the id in
# Browser/extension, which anyone could publish an extension under.
shipped_gecko_id=$(sed -n 's/^ *"id": *"\([^"]*\)".*/\1/p' Browser/extension/manifest.json)
if [ -z "$gecko_id" ] && [ -f "$extension_dir/manifest.json" ]; then
    gecko_id=$(sed -n 's/^ *"id": *"\([^"]*\)".*/\1/p' "$extension_dir/manifest.json")
    [ "$gecko_id" != "$shipped_gecko_id" ] || gecko_id=""
fi
[ -n "$gecko_id" ] || gecko_id="{$(cat /proc/sys/kernel/random/uuid)}"
source scripts/firefox-extension-id.sh
if ! firefox_extension_id_is_valid "$gecko_id"; then
    echo "install-service: \"$gecko_id\" is not a Firefox extension id: give a {UUID} or name@domain (at most 80 characters)" >&2
    exit 2
fi

# The path goes unquoted into Exec= lines of desktop entries and the unit's ExecStart=.
case "$bindir" in
    *[[:space:]\"\'\\\$%\`]*)
        echo "install-service: $bindir has spaces or quoting characters; choose another PREFIX" >&2
        exit 1 ;;
esac

if [ -n "$binaries" ]; then
    bin=$binaries   # built by the caller, who has what they need; swift is not run
else
    source scripts/setup.sh
    for program in "${programs[@]}" baton-1; do swift build -c release --product "$program"; done
    bin="$(swift build -c release --show-bin-path)"
fi
for program in "${programs[@]}"; do
    if [ ! -x "$bin/$program" ]; then
        echo "install-service: $bin/$program is missing: build it first (swift build --product $program)" >&2
        exit 1
    fi
done
if [ ! -f "$bin/libbaton-1.so" ]; then
    echo "install-service: $bin/libbaton-1.so is missing: build it first (swift build --product baton-1)" >&2
    exit 1
fi

work=$(mktemp -d -t baton-install.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Installs `$1` as `$2` (0644) with @bindir@ replaced by the installed binaries' folder and
# @gecko_id@ by the Firefox extension id.
install_template() {
    sed -e "s|@bindir@|$bindir|g" -e "s|@gecko_id@|$gecko_id|g" "$1" >"$work/template"
    install -m 0644 "$work/template" "$2"
}

install -d "$bindir" "$data/dbus-1/services" "$unitdir" "$wants" \
    "$config/autostart" "$data/applications" "$data/icons/hicolor/scalable/apps" \
    "$data/icons/hicolor/symbolic/apps" "$data/metainfo" "$data/bash-completion/completions" \
    "$data/zsh/site-functions" "$config/fish/completions" "$mandir/man1" \
    "${chromium_hosts[@]}" "$firefox_hosts" "$extension_dir"
for program in "${programs[@]}"; do install -m 0755 "$bin/$program" "$bindir/"; done
install_template "$resources/org.baton.Daemon.service" "$data/dbus-1/services/org.baton.Daemon.service"
install_template "$resources/batond.service" "$unitdir/batond.service"
install_template "$resources/org.baton.Daemon-autostart.desktop" "$config/autostart/org.baton.Daemon.desktop"
install_template "$resources/org.baton.Daemon.desktop" "$data/applications/org.baton.Daemon.desktop"
install_template Sources/BatonApp/Resources/org.baton.Baton.desktop "$data/applications/org.baton.Baton.desktop"
install_template Sources/BatonBrowserHost/Resources/org.baton.BrowserHost.desktop "$data/applications/org.baton.BrowserHost.desktop"
for folder in "${chromium_hosts[@]}"; do
    install_template "Browser/native-messaging/chromium/$browser_host.json" "$folder/$browser_host.json"
done
install_template "Browser/native-messaging/firefox/$browser_host.json" "$firefox_hosts/$browser_host.json"
for file in "${extension_files[@]}"; do install -m 0644 "Browser/extension/$file" "$extension_dir/"; done
sed "s|\"id\": \"$shipped_gecko_id\"|\"id\": \"$gecko_id\"|" Browser/extension/manifest.json >"$work/manifest.json"
install -m 0644 "$work/manifest.json" "$extension_dir/manifest.json"
install -m 0644 "$resources/org.baton.Daemon.svg" "$data/icons/hicolor/scalable/apps/"
install -m 0644 "$resources/org.baton.Daemon-symbolic.svg" "$data/icons/hicolor/symbolic/apps/"
# Each example's entry names the bare program on every Exec line (the main group's and each
# action's), which the tests replace too: here it becomes the installed path.
for example in "${examples[@]}"; do
    example_resources=Examples/$example/Resources
    install -d "$bindir/Baton_$example.resources"
    cp -R "$bin/Baton_$example.resources/." "$bindir/Baton_$example.resources/"
    sed "s|^Exec=$example|Exec=$bindir/$example|" "$example_resources/org.example.$example.desktop" >"$work/$example.desktop"
    install -m 0644 "$work/$example.desktop" "$data/applications/org.example.$example.desktop"
    install_template "$example_resources/org.example.$example.service" "$data/dbus-1/services/org.example.$example.service"
    install -m 0644 "$example_resources/icons/hicolor/scalable/apps/org.example.$example.svg" "$data/icons/hicolor/scalable/apps/"
    install -m 0644 "$example_resources/icons/hicolor/symbolic/apps/org.example.$example-symbolic.svg" \
        "$data/icons/hicolor/symbolic/apps/"
    install -m 0644 "$example_resources/org.example.$example.metainfo.xml" "$data/metainfo/"
done
# libbaton: the library (0644, as Debian installs them) and its development link, the header,
# and its introspection data naming the installed library by its path.
PREFIX="$prefix" scripts/gir.sh "$bin" >/dev/null
install -d "$libdir/pkgconfig" "$libdir/girepository-1.0" "$prefix/include/baton-1/baton" \
    "$prefix/share/gir-1.0" "$python_examples" "$js_examples"
install -m 0644 "$bin/libbaton-1.so" "$libdir/libbaton-1.so.0"
ln -sfn libbaton-1.so.0 "$libdir/libbaton-1.so"
for header in "${baton_headers[@]}"; do
    install -m 0644 "Sources/CBatonGObject/include/baton/$header" "$prefix/include/baton-1/baton/"
done
install -m 0644 "$bin/gir/baton-1.pc" "$libdir/pkgconfig/baton-1.pc"
sed "s|shared-library=\"libbaton-1.so.0\"|shared-library=\"$libdir/libbaton-1.so.0\"|" "$bin/gir/Baton-1.0.gir" >"$work/Baton-1.0.gir"
g-ir-compiler --output="$work/Baton-1.0.typelib" "$work/Baton-1.0.gir"
install -m 0644 "$work/Baton-1.0.gir" "$prefix/share/gir-1.0/Baton-1.0.gir"
install -m 0644 "$work/Baton-1.0.typelib" "$libdir/girepository-1.0/Baton-1.0.typelib"
install -d "$prefix/share/vala/vapi"
install -m 0644 "$bin/gir/baton-1.vapi" "$bin/gir/baton-1.deps" "$prefix/share/vala/vapi/"
install -m 0644 Examples/Python/notes.py "$python_examples/notes.py"
sed "s|^Exec=python3 notes.py|Exec=env GI_TYPELIB_PATH=$libdir/girepository-1.0 /usr/bin/python3 $python_examples/notes.py|" \
    Examples/Python/Resources/org.example.PyNotes.desktop >"$work/PyNotes.desktop"
install -m 0644 "$work/PyNotes.desktop" "$data/applications/org.example.PyNotes.desktop"
install -m 0644 Examples/Python/Resources/org.example.PyNotes.svg "$data/icons/hicolor/scalable/apps/"
install -m 0644 Examples/JavaScript/notes.js "$js_examples/notes.js"
sed "s|^Exec=gjs -m notes.js|Exec=env GI_TYPELIB_PATH=$libdir/girepository-1.0 /usr/bin/gjs -m $js_examples/notes.js|" \
    Examples/JavaScript/Resources/org.example.JSNotes.desktop >"$work/JSNotes.desktop"
install -m 0644 "$work/JSNotes.desktop" "$data/applications/org.example.JSNotes.desktop"
install -m 0644 Examples/JavaScript/Resources/org.example.JSNotes.svg "$data/icons/hicolor/scalable/apps/"
# The C example, built as its comment says, against the installed library (found by its path).
# shellcheck disable=SC2046  # pkg-config's flags are words
cc Examples/C/notes.c -o "$work/baton-notes" $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs baton-1 gtk4) \
    -Wl,-rpath,"$libdir"
install -m 0755 "$work/baton-notes" "$bindir/baton-notes"
sed "s|^Exec=baton-notes|Exec=$bindir/baton-notes|" Examples/C/Resources/org.example.CNotes.desktop >"$work/CNotes.desktop"
install -m 0644 "$work/CNotes.desktop" "$data/applications/org.example.CNotes.desktop"
install -m 0644 Examples/C/Resources/org.example.CNotes.svg "$data/icons/hicolor/scalable/apps/"

if command -v desktop-file-validate >/dev/null 2>&1; then
    desktop-file-validate "$data/applications/org.baton.Daemon.desktop" "$config/autostart/org.baton.Daemon.desktop" \
        "$data/applications/org.example.MailComposer.desktop" "$data/applications/org.example.TextEditor.desktop" \
        "$data/applications/org.baton.Baton.desktop" "$data/applications/org.baton.BrowserHost.desktop" \
        "$data/applications/org.example.PyNotes.desktop" "$data/applications/org.example.CNotes.desktop" \
        "$data/applications/org.example.JSNotes.desktop" \
        || echo "install-service: warning: desktop-file-validate found problems (above)" >&2
fi
# The caches desktops read: the MIME handlers (so mailto: links can offer MailComposer and text files TextEditor; the
# default handler stays the user's), and the icon cache, only where the theme folder has an
# index.theme (without one, GTK would not read the cache).
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$data/applications" \
        || echo "install-service: warning: update-desktop-database $data/applications failed" >&2
fi
if [ -f "$data/icons/hicolor/index.theme" ]; then
    for icon_cache_tool in gtk4-update-icon-cache gtk-update-icon-cache; do
        command -v "$icon_cache_tool" >/dev/null 2>&1 || continue
        "$icon_cache_tool" -q -f "$data/icons/hicolor" \
            || echo "install-service: warning: $icon_cache_tool $data/icons/hicolor failed" >&2
        break
    done
fi

# Shell completions, as swift-argument-parser writes them for each program.
for program in baton batond; do
    "$bindir/$program" --generate-completion-script bash >"$work/$program.bash"
    "$bindir/$program" --generate-completion-script zsh >"$work/_$program"
    "$bindir/$program" --generate-completion-script fish >"$work/$program.fish"
    install -m 0644 "$work/$program.bash" "$data/bash-completion/completions/$program"
    install -m 0644 "$work/_$program" "$data/zsh/site-functions/_$program"
    install -m 0644 "$work/$program.fish" "$config/fish/completions/$program.fish"
done

# Manual pages, by swift-argument-parser's generate-manual tool, run on the installed
# programs. Its package plugin (`swift package generate-manual`) would first build every
# product of the package in release mode; asked for its help only, it builds just the tool,
# beside the debug products. A tool already built beside the programs (--binaries with the
# debug products) is used as it is.
find_manual_tool() {
    local name
    for name in generate-manual-tool generate-manual; do
        if [ -x "$1/$name" ]; then echo "$1/$name"; return 0; fi
    done
    return 1
}
manual_tool=$(find_manual_tool "$bin") || true
if [ -z "$manual_tool" ] && command -v swift >/dev/null 2>&1; then
    if swift package generate-manual --help >"$work/manual-help.txt" 2>&1; then
        manual_tool=$(find_manual_tool "$(swift build --show-bin-path)") || true
    fi
fi
if [ -n "$manual_tool" ]; then
    for program in baton batond; do
        "$manual_tool" "$bindir/$program" --section 1 --output-directory "$work"
        install -m 0644 "$work/$program.1" "$mandir/man1/$program.1"
    done
else
    echo "install-service: warning: swift-argument-parser's generate-manual tool is not built; no manual pages installed" >&2
    if [ -f "$work/manual-help.txt" ]; then tail -n 5 "$work/manual-help.txt" | sed 's/^/    /' >&2; fi
fi

# Enable the unit for the graphical session: systemctl when a user manager runs; else the
# link `systemctl --user enable` would make, so a session started later with systemd starts it.
if command -v systemctl >/dev/null 2>&1 && systemctl --user daemon-reload >/dev/null 2>&1; then
    systemctl --user enable batond.service
    if systemctl --user is-active --quiet graphical-session.target; then
        systemctl --user restart batond.service   # starts it, or runs the new binary in place of the old
        echo "install-service: batond.service enabled and (re)started for this session"
    else
        echo "install-service: batond.service enabled; it starts with the next graphical session"
    fi
else
    ln -sfn "$unitdir/batond.service" "$wants/batond.service"
    echo "install-service: no systemd user manager here; batond.service enabled by linking it into $wants"
    echo "install-service: batond starts with the next session (autostart entry or unit), or when an app or baton first needs it"
fi
echo "install-service: the browser extension is in $extension_dir: load it in chrome://extensions (Developer mode, Load unpacked)"
echo "install-service: done. Try: $bindir/baton status"
