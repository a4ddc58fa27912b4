#!/usr/bin/env bash
# Takes screenshots of MailComposer under Xvfb, in the light and the dark style, to look at
# after UI work: the main window, a compose window, the Discard Draft? dialog, the keyboard
# shortcuts window and the About window. Usage: scripts/screenshots.sh [FOLDER]
# (default /tmp/baton-screenshots); prints the files it wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/baton-screenshots}
source scripts/setup.sh
set +e
swift build --product MailComposer >/dev/null || exit 1
app="$(swift build --show-bin-path)/MailComposer"
mkdir -p "$out"

for style in light dark; do
    work=$(mktemp -d -t mailcomposer-shots.XXXXXX)
    STYLE=$style APP=$app OUT=$out WORK=$work dbus-run-session -- \
        xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
            export NO_AT_BRIDGE=1 XDG_DATA_HOME=$WORK/data XDG_CONFIG_HOME=$WORK/config
            [ "$STYLE" = dark ] && export ADW_DEBUG_COLOR_SCHEME=prefer-dark
            "$APP" --state-dir "$WORK/state" --data-dir "$WORK/mail" --save-interval 0 2>"$WORK/app.log" &
            pid=$!
            sleep 3
            import -window root "$OUT/$STYLE-main.png"
            "$APP" --to "bob@example.org" --subject "Lunch on Friday" --body "Shall we meet at noon by the river?"
            sleep 2
            import -window root "$OUT/$STYLE-compose.png"
            xdotool key ctrl+w
            sleep 1
            import -window root "$OUT/$STYLE-discard.png"
            xdotool key Escape
            sleep 0.5
            xdotool key ctrl+question
            sleep 1
            import -window root "$OUT/$STYLE-shortcuts.png"
            xdotool key Escape
            gapplication action org.example.MailComposer about
            sleep 1
            import -window root "$OUT/$STYLE-about.png"
            kill $pid
            wait $pid 2>/dev/null
        ' 2>/dev/null
    rm -rf "$work"
done
ls "$out"/*.png
