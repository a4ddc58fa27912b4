#!/usr/bin/python3
"""What loading libbaton costs a PyGObject GTK 4 app: RSS and PSS (from
/proc/self/smaps_rollup) and wall time, before and after `from gi.repository import Baton`
and its first use (an activity, Handoff enabled on the application). Prints one JSON line.
Run with GI_TYPELIB_PATH and LD_LIBRARY_PATH naming a build (scripts/gir.sh), under a display."""
import json
import time

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, GLib, Gtk  # noqa: E402


def memory():
    values = {}
    with open("/proc/self/smaps_rollup") as rollup:
        for line in rollup:
            parts = line.split()
            if parts[0] in ("Rss:", "Pss:"):
                values[parts[0][:-1].lower()] = int(parts[1])
    return values


app = Gtk.Application(application_id="org.example.Measure", flags=Gio.ApplicationFlags.NON_UNIQUE)
Gtk.init()
window = Gtk.Window()  # GTK in use, as in an app
before = memory()
start = time.perf_counter()
gi.require_version("Baton", "1.0")
from gi.repository import Baton  # noqa: E402

imported = time.perf_counter()
after_import = memory()
handoff = Baton.Application.enable_handoff(app, "org.example", ["org.example.notes.note"])
activity = Baton.Activity.new("org.example.notes.note")
activity.props.title = "Note"
activity.set_user_info_value("text", GLib.Variant("s", "x"))
Baton.window_set_activity(window, activity)
used = time.perf_counter()
after_use = memory()
print(json.dumps({
    "import_ms": round((imported - start) * 1000, 1),
    "first_use_ms": round((used - imported) * 1000, 1),
    "rss_added_kb": after_use["rss"] - before["rss"],
    "pss_added_kb": after_use["pss"] - before["pss"],
    "rss_added_by_import_kb": after_import["rss"] - before["rss"],
    "pss_added_by_import_kb": after_import["pss"] - before["pss"],
    "rss_kb": after_use["rss"], "pss_kb": after_use["pss"],
}))
