#!/usr/bin/python3
"""A test app for libbaton's documents: it declares the type "Note" (*.note) with the
activity type org.example.notes.document, opens the files it is given as documents, and has no
continue handler, so a continued note document is reopened by the framework. Each document's
window shows the file's text; its activity adds the text's length. Run by GObjectDocumentTests
with the built library and typelib."""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Baton", "1.0")
from gi.repository import Baton, Gio, GLib, Gtk  # noqa: E402

TYPE = "org.example.notes.document"


class App(Gtk.Application):
    def __init__(self):
        super().__init__(application_id="org.example.PyNoteDocuments", flags=Gio.ApplicationFlags.HANDLES_OPEN)
        self.handoff = Baton.Application.enable_handoff(self, "org.example", [TYPE])
        self.handoff.add_document_type("Note", ["note"], ["text/x-baton-note"], TYPE)
        self.handoff.connect("open-document", self.on_open_document)
        self.connect("open", self.on_open)

    def on_open(self, _app, files, _count, _hint):
        for file in files:
            self.handoff.open_document(file)

    def on_open_document(self, _handoff, document):
        _ok, contents, _etag = document.get_file().load_contents(None)
        text = contents.decode()
        window = Gtk.ApplicationWindow(application=self, title=document.get_file().get_basename())
        view = Gtk.TextView()
        view.get_buffer().set_text(text)
        window.set_child(view)
        activity = document.get_activity()
        activity.connect("update-state", lambda a: a.set_user_info_value("length", GLib.Variant("x", len(text))))
        activity.connect("restore-state", lambda _a, continued: print(
            f"restored {continued.get_user_info_value('NSUserActivityDocumentURL').unpack()}", file=sys.stderr))
        document.add_window(window)
        activity.set_needs_save(True)
        window.present()


if __name__ == "__main__":
    sys.exit(App().run(sys.argv))
