#!/usr/bin/python3
"""Notes: a PyGObject app with Handoff, through libbaton (GObject Introspection).

Each window holds one note. Its activity carries the text: typing marks it for saving, the
framework fills it lazily (update-state), elects it from GTK's focus, and batond offers it
to the person's other devices; a note continued from another device opens in a new window
(continue, then restore-state). Runs as it stands once libbaton is installed (or with
GI_TYPELIB_PATH and LD_LIBRARY_PATH naming a build of it: see scripts/gir.sh).
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Baton", "1.0")
from gi.repository import Baton, Gio, GLib, Gtk  # noqa: E402

APP_ID = "org.example.PyNotes"
TEAM = "org.example"
NOTE_TYPE = "org.example.notes.note"  # the README's Swift notes app continues it too


class NoteWindow(Gtk.ApplicationWindow):
    """A window with one note; its activity is the window's own."""

    def __init__(self, app):
        super().__init__(application=app, title="Note", default_width=480, default_height=320)
        self.view = Gtk.TextView(wrap_mode=Gtk.WrapMode.WORD_CHAR, top_margin=12, left_margin=12, right_margin=12)
        self.set_child(Gtk.ScrolledWindow(child=self.view))
        self.buffer = self.view.get_buffer()

        self.activity = Baton.Activity.new(NOTE_TYPE)
        self.activity.props.title = "Note"
        self.activity.connect("update-state", self.on_update_state)
        self.activity.connect("restore-state", self.on_restore_state)
        self.activity.connect("was-continued", self.on_was_continued)
        Baton.window_set_activity(self, self.activity)
        # Cheap on every keystroke: the marks before an idle main loop make one update pass.
        self.buffer.connect("changed", lambda _buffer: self.activity.set_needs_save(True))

    def text(self):
        return self.buffer.get_text(self.buffer.get_start_iter(), self.buffer.get_end_iter(), False)

    def on_update_state(self, activity):
        """Runs lazily, once per idle after changes; user-info was emptied before."""
        text = self.text()
        activity.set_user_info_value("text", GLib.Variant("s", text))
        first_line = text.split("\n", 1)[0].strip()
        activity.props.title = f"Note: {first_line}" if first_line else "Note"

    def on_restore_state(self, _activity, continued):
        value = continued.get_user_info_value("text")
        self.buffer.set_text(value.unpack() if value is not None else "")

    def on_was_continued(self, _activity, device_name):
        print(f"notes: continued on {device_name}", file=sys.stderr)


class NotesApp(Gtk.Application):
    def __init__(self):
        super().__init__(application_id=APP_ID, flags=Gio.ApplicationFlags.DEFAULT_FLAGS)
        # Before run(): registers with batond at startup. Keeps a reference itself.
        self.handoff = Baton.Application.enable_handoff(self, TEAM, [NOTE_TYPE])
        # Not emitted when batond started the app to continue a note: that brings its window.
        self.handoff.connect("activate", lambda _handoff: NoteWindow(self).present())
        self.handoff.connect("continue", self.on_continue)
        self.handoff.connect("did-fail", self.on_did_fail)
        new_note = Gio.SimpleAction(name="new-note")
        new_note.connect("activate", lambda *_: NoteWindow(self).present())
        self.add_action(new_note)
        self.set_accels_for_action("app.new-note", ["<Control>n"])

    def on_continue(self, handoff, activity):
        window = NoteWindow(self)
        handoff.restore(activity, [window])  # emits the window activity's restore-state
        window.present()
        return True

    def on_did_fail(self, _handoff, activity_type, error):
        if not error.matches(Baton.error_quark(), Baton.Error.CANCELLED):
            print(f"notes: could not continue {activity_type}: {error.message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(NotesApp().run(sys.argv))
