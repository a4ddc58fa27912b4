#!/bin/sh
# Lays out what debian/rules built in $STAGE (debian/tmp), as the packages install it; each
# package's debian/*.install file takes its part. Called by debian/rules with:
#   BIN               swift build's release products (rpath: $SWIFT_RUNTIME_DIR)
#   TOOLS             swift build's debug folder, with swift-argument-parser's generate-manual
#   SWIFT_LIBS        the toolchain's runtime libraries, copied where the programs look
#   VERSION           the package's version (BatonVersion's)
#   STAGE MULTIARCH SWIFT_RUNTIME_DIR GECKO_ID SHIPPED_GECKO_ID FIREFOX_APP_ID
set -eu

programs="batond baton baton-app baton-browser-host"
examples="MailComposer TextEditor"
libdir=/usr/lib/$MULTIARCH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Installs template $1 as $STAGE/$2 (0644), its @bindir@ the installed programs' folder and
# @gecko_id@ the Firefox extension id; its comments about the from-source installer go.
template() {
    install -d "$STAGE/$(dirname "$2")"
    sed -e '/^#/d' -e 's|@bindir@|/usr/bin|g' -e "s|@gecko_id@|$GECKO_ID|g" "$1" >"$work/template"
    install -m 0644 "$work/template" "$STAGE/$2"
}

install -d "$STAGE/usr/bin"
for program in $programs $examples; do install -m 0755 "$BIN/$program" "$STAGE/usr/bin/"; done

# The Swift runtime: every toolchain library a program or libbaton loads, as ldd finds them.
install -d "$STAGE$SWIFT_RUNTIME_DIR"
for binary in $programs $examples libbaton-1.so; do
    LD_LIBRARY_PATH=$SWIFT_LIBS ldd "$BIN/$binary"
done | awk -v libs="$SWIFT_LIBS" '$2 == "=>" && index($3, libs "/") == 1 { print $3 }' \
    | sort -u >"$work/runtime"
[ -s "$work/runtime" ] || { echo "stage: no Swift runtime library found under $SWIFT_LIBS" >&2; exit 1; }
while read -r library; do install -m 0644 "$library" "$STAGE$SWIFT_RUNTIME_DIR/"; done <"$work/runtime"

# The version each AppStream file gives as its newest release is the package's.
for metainfo in Sources/BatonApp/Resources/org.baton.Baton.metainfo.xml Examples/*/Resources/*.metainfo.xml; do
    released=$(sed -n 's/.*<release version="\([^"]*\)".*/\1/p' "$metainfo" | head -n 1)
    if [ "$released" != "$VERSION" ]; then
        echo "stage: $metainfo's newest release is ${released:-missing}, but the package is $VERSION (BatonVersion): add a <release> for it" >&2
        exit 1
    fi
done

# batond: its user unit (enabled for graphical sessions by a preset and by dh_installsystemduser),
# D-Bus activation, autostart entry for sessions without user units, desktop entries, icons.
resources=Sources/batond/Resources
template "$resources/batond.service" usr/lib/systemd/user/batond.service
install -d "$STAGE/usr/lib/systemd/user-preset"
install -m 0644 debian/80-baton.preset "$STAGE/usr/lib/systemd/user-preset/"
template "$resources/org.baton.Daemon.service" usr/share/dbus-1/services/org.baton.Daemon.service
template "$resources/org.baton.Daemon-autostart.desktop" etc/xdg/autostart/org.baton.Daemon.desktop
template "$resources/org.baton.Daemon.desktop" usr/share/applications/org.baton.Daemon.desktop
template Sources/BatonApp/Resources/org.baton.Baton.desktop usr/share/applications/org.baton.Baton.desktop
template Sources/BatonApp/Resources/org.baton.Baton.metainfo.xml usr/share/metainfo/org.baton.Baton.metainfo.xml
template Sources/BatonBrowserHost/Resources/org.baton.BrowserHost.desktop usr/share/applications/org.baton.BrowserHost.desktop
install -d "$STAGE/usr/share/icons/hicolor/scalable/apps" "$STAGE/usr/share/icons/hicolor/symbolic/apps"
install -m 0644 "$resources/org.baton.Daemon.svg" "$STAGE/usr/share/icons/hicolor/scalable/apps/"
install -m 0644 "$resources/org.baton.Daemon-symbolic.svg" "$STAGE/usr/share/icons/hicolor/symbolic/apps/"

# The browsers' native messaging host manifests, in the folders Debian's Chromium and Firefox
# ESR read for every user.
template Browser/native-messaging/chromium/org.baton.browser_host.json \
    etc/chromium/native-messaging-hosts/org.baton.browser_host.json
template Browser/native-messaging/firefox/org.baton.browser_host.json \
    usr/lib/mozilla/native-messaging-hosts/org.baton.browser_host.json

# The extension (webext-baton), where Debian's webext-* packages put theirs: the files in
# /usr/share/webext/baton, linked from Chromium's extension folder (Debian's chromium loads
# every extension there, /etc/chromium.d/extensions) and from Firefox's system folder for the
# application, under the extension's id.
install -d "$STAGE/usr/share/webext/baton"
sed "s|\"id\": *\"$SHIPPED_GECKO_ID\"|\"id\": \"$GECKO_ID\"|" Browser/extension/manifest.json >"$work/manifest.json"
grep -q "\"id\": \"$GECKO_ID\"" "$work/manifest.json" \
    || { echo "stage: the extension's manifest does not carry the Firefox id $GECKO_ID" >&2; exit 1; }
install -m 0644 "$work/manifest.json" Browser/extension/background.js "$STAGE/usr/share/webext/baton/"
install -d "$STAGE/usr/share/chromium/extensions" "$STAGE/usr/share/mozilla/extensions/$FIREFOX_APP_ID"
ln -s ../../webext/baton "$STAGE/usr/share/chromium/extensions/baton"
ln -s ../../../webext/baton "$STAGE/usr/share/mozilla/extensions/$FIREFOX_APP_ID/$GECKO_ID"

# The examples: programs, their resources where AppResources looks (../share/NAME beside the
# program), desktop entries naming the installed program, D-Bus services, icons, metainfo.
for example in $examples; do
    from=Examples/$example/Resources
    install -d "$STAGE/usr/share/$example"
    cp -R "$BIN/Baton_$example.resources/Resources/." "$STAGE/usr/share/$example/"
    chmod -R u=rwX,go=rX "$STAGE/usr/share/$example"
    install -d "$STAGE/usr/share/applications"
    sed "s|^Exec=$example|Exec=/usr/bin/$example|" "$from/org.example.$example.desktop" >"$work/$example.desktop"
    install -m 0644 "$work/$example.desktop" "$STAGE/usr/share/applications/org.example.$example.desktop"
    template "$from/org.example.$example.service" "usr/share/dbus-1/services/org.example.$example.service"
    install -m 0644 "$from/icons/hicolor/scalable/apps/org.example.$example.svg" "$STAGE/usr/share/icons/hicolor/scalable/apps/"
    install -m 0644 "$from/icons/hicolor/symbolic/apps/org.example.$example-symbolic.svg" "$STAGE/usr/share/icons/hicolor/symbolic/apps/"
    install -d "$STAGE/usr/share/metainfo"
    install -m 0644 "$from/org.example.$example.metainfo.xml" "$STAGE/usr/share/metainfo/"
done

# libbaton: the library by its SONAME, the development link, header, pkg-config file, GIR,
# typelib (naming the library by its SONAME, found on the system's path) and Vala binding.
install -d "$STAGE$libdir/pkgconfig" "$STAGE$libdir/girepository-1.0" "$STAGE/usr/include/baton-1/baton" \
    "$STAGE/usr/share/gir-1.0" "$STAGE/usr/share/vala/vapi"
install -m 0644 "$BIN/libbaton-1.so" "$STAGE$libdir/libbaton-1.so.0.0.0"
ln -s libbaton-1.so.0.0.0 "$STAGE$libdir/libbaton-1.so.0"
ln -s libbaton-1.so.0 "$STAGE$libdir/libbaton-1.so"
install -m 0644 Sources/CBatonGObject/include/baton/*.h "$STAGE/usr/include/baton-1/baton/"
install -m 0644 "$BIN/gir/baton-1.pc" "$STAGE$libdir/pkgconfig/"
install -m 0644 "$BIN/gir/Baton-1.0.gir" "$STAGE/usr/share/gir-1.0/"
install -m 0644 "$BIN/gir/Baton-1.0.typelib" "$STAGE$libdir/girepository-1.0/"
install -m 0644 "$BIN/gir/baton-1.vapi" "$BIN/gir/baton-1.deps" "$STAGE/usr/share/vala/vapi/"

# Completions and manual pages, as swift-argument-parser writes them, from the built programs.
install -d "$STAGE/usr/share/bash-completion/completions" "$STAGE/usr/share/zsh/vendor-completions" \
    "$STAGE/usr/share/fish/vendor_completions.d" "$STAGE/usr/share/man/man1"
for program in baton batond; do
    # bash-completion sources the file: it is no script of its own, so no #! line.
    LD_LIBRARY_PATH=$SWIFT_LIBS "$BIN/$program" --generate-completion-script bash \
        | sed '1{/^#!/d}' >"$STAGE/usr/share/bash-completion/completions/$program"
    LD_LIBRARY_PATH=$SWIFT_LIBS "$BIN/$program" --generate-completion-script zsh >"$STAGE/usr/share/zsh/vendor-completions/_$program"
    LD_LIBRARY_PATH=$SWIFT_LIBS "$BIN/$program" --generate-completion-script fish >"$STAGE/usr/share/fish/vendor_completions.d/$program.fish"
    manual_tool=$TOOLS/generate-manual-tool
    [ -x "$manual_tool" ] || manual_tool=$TOOLS/generate-manual
    LD_LIBRARY_PATH=$SWIFT_LIBS "$manual_tool" "$BIN/$program" --section 1 --output-directory "$work"
    install -m 0644 "$work/$program.1" "$STAGE/usr/share/man/man1/"
done
