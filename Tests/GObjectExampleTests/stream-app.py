#!/usr/bin/python3
"""A test app for libbaton's continuation streams, in two roles (argv[1]):

origin     offers an activity that supports streams; a stream it receives is read to its end
           and answered with "answer to " and the request.
continue   continues that activity: opens a stream (get_continuation_streams), writes the
           contents of REQUEST_FILE, shuts down its write half, reads the answer to the end,
           writes it to the file RESULT (an error as "error: ..."), then restores.

Run by GObjectStreamTests on two devices with the built library and typelib."""
import os
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Baton", "1.0")
from gi.repository import Baton, Gio, GLib, Gtk  # noqa: E402

TYPE = "org.example.streams.check"
ROLE = sys.argv[1]
APP_ID = "org.example.StreamOrigin" if ROLE == "origin" else "org.example.StreamContinuer"


def read_to_end(stream):
    data = b""
    while True:
        chunk = stream.get_input_stream().read_bytes(65536, None).get_data()
        if not chunk:
            return data
        data += chunk


class App(Gtk.Application):
    def __init__(self):
        super().__init__(application_id=APP_ID, flags=Gio.ApplicationFlags.NON_UNIQUE)
        self.handoff = Baton.Application.enable_handoff(self, "org.example", [TYPE])
        self.handoff.connect("activate", self.on_activate)
        self.handoff.connect("continue", self.on_continue)

    def window(self, title):
        window = Gtk.ApplicationWindow(application=self, title=title)
        window.set_child(Gtk.Entry())
        return window

    def on_activate(self, _handoff):
        window = self.window("Stream origin")
        self.activity = Baton.Activity.new(TYPE)
        self.activity.props.title = "Stream check"
        self.activity.props.supports_continuation_streams = True
        self.activity.connect("stream-received", self.on_stream)
        Baton.window_set_activity(window, self.activity)
        window.present()

    def on_stream(self, _activity, stream):
        request = read_to_end(stream)
        stream.get_output_stream().write_all(b"answer to " + request, None)
        stream.close(None)

    def on_continue(self, handoff, activity):
        window = self.window("Stream continued")
        Baton.window_set_activity(window, Baton.Activity.new(TYPE))

        def opened(source, result):
            try:
                stream = source.get_continuation_streams_finish(result)
                with open(os.environ["REQUEST_FILE"], "rb") as request:
                    stream.get_output_stream().write_all(request.read(), None)
                stream.get_socket().shutdown(False, True)
                outcome = read_to_end(stream).decode()
                stream.close(None)
            except GLib.Error as error:
                outcome = f"error: {error.domain} {error.code} {error.message}"
            with open(os.environ["RESULT"], "w") as result_file:
                result_file.write(outcome)
            handoff.restore(activity, [window])

        activity.get_continuation_streams(None, opened)
        window.present()
        return True


if __name__ == "__main__":
    sys.exit(App().run([sys.argv[0]]))
