#!/usr/bin/python3
"""libbaton's GObject API, from Python, against API.md's behaviour: user-info as a{sv},
lazy update passes (one per idle, user-info emptied first), ownership, errors. Run by
GObjectAPITests with the built library and typelib, under Xvfb."""
import unittest

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Baton", "1.0")
from gi.repository import Baton, Gio, GLib, Gtk  # noqa: E402

TYPE = "org.example.contract"


def drain():
    """Runs the main loop until it is idle: the scheduler's turns included."""
    context = GLib.MainContext.default()
    for _ in range(10):
        while context.iteration(False):
            pass


class ActivityTests(unittest.TestCase):
    def test_properties(self):
        activity = Baton.Activity.new(TYPE)
        self.assertEqual(activity.props.activity_type, TYPE)
        self.assertIsNone(activity.props.title)
        self.assertTrue(activity.props.eligible_for_handoff)
        self.assertFalse(activity.props.supports_continuation_streams)
        self.assertTrue(activity.props.is_valid)
        activity.props.title = "A title"
        activity.props.supports_continuation_streams = True
        self.assertEqual(activity.get_title(), "A title")
        self.assertTrue(activity.get_supports_continuation_streams())
        self.assertEqual(activity.props.user_info.unpack(), {})

    def test_user_info_keeps_its_types(self):
        activity = Baton.Activity.new(TYPE)
        info = GLib.Variant("a{sv}", {
            "s": GLib.Variant("s", "text"), "b": GLib.Variant("b", True), "x": GLib.Variant("x", -7),
            "i": GLib.Variant("i", 42), "d": GLib.Variant("d", 2.5), "ay": GLib.Variant("ay", b"\x00\x01"),
            "av": GLib.Variant("av", [GLib.Variant("s", "one"), GLib.Variant("x", 2)]),
            "as": GLib.Variant("as", ["p", "q"]),
            "dict": GLib.Variant("a{sv}", {"inner": GLib.Variant("s", "deep")}),
            "null": GLib.Variant("mv", None),
        })
        activity.props.user_info = info
        back = activity.props.user_info
        self.assertEqual(back.get_type_string(), "a{sv}")
        values = {key: back.lookup_value(key, None) for key in back.keys()}
        self.assertEqual(values["s"].get_string(), "text")
        self.assertEqual(values["b"].get_boolean(), True)
        self.assertEqual(values["x"].get_int64(), -7)
        self.assertEqual(values["i"].get_int64(), 42, "every integer comes back as x")
        self.assertEqual(values["d"].get_double(), 2.5)
        self.assertEqual(bytes(values["ay"].get_data_as_bytes().get_data()), b"\x00\x01")
        self.assertEqual(values["av"].unpack(), ["one", 2])
        self.assertEqual(values["as"].unpack(), ["p", "q"], "an array of strings comes back as av")
        self.assertEqual(values["dict"].unpack(), {"inner": "deep"})
        self.assertEqual(values["null"].get_type_string(), "mv")
        self.assertIsNone(values["null"].get_maybe())

    def test_entries_merge_and_single_values(self):
        activity = Baton.Activity.new(TYPE)
        activity.set_user_info_value("a", GLib.Variant("s", "1"))
        activity.add_user_info_entries(GLib.Variant("a{sv}", {"a": GLib.Variant("s", "2"), "b": GLib.Variant("b", False)}))
        self.assertEqual(activity.props.user_info.unpack(), {"a": "2", "b": False})
        self.assertEqual(activity.get_user_info_value("a").unpack(), "2")
        self.assertIsNone(activity.get_user_info_value("missing"))
        activity.set_user_info_value("a", None)
        self.assertEqual(activity.props.user_info.unpack(), {"b": False})
        activity.set_user_info(None)
        self.assertEqual(activity.props.user_info.unpack(), {})

    def test_a_webpage_url_must_be_http(self):
        activity = Baton.Activity.new(TYPE)
        with self.assertRaises(GLib.Error) as raised:
            activity.set_webpage_url("ftp://example.org/file")
        self.assertTrue(raised.exception.matches(Baton.error_quark(), Baton.Error.INVALID_WEBPAGE_URL))
        self.assertIsNone(activity.props.webpage_url, "the activity is left unchanged")
        self.assertTrue(activity.set_webpage_url("https://example.org/page"))
        self.assertEqual(activity.props.webpage_url, "https://example.org/page")
        activity.set_webpage_url(None)
        self.assertIsNone(activity.props.webpage_url)


class ManagedActivityTests(unittest.TestCase):
    """An activity on a widget of an application with Handoff (no service on this bus)."""

    app = None

    @classmethod
    def setUpClass(cls):
        cls.app = Gtk.Application(application_id="org.example.Contract", flags=Gio.ApplicationFlags.NON_UNIQUE)
        cls.handoff = Baton.Application.enable_handoff(cls.app, "org.example", [TYPE])
        cls.app.register(None)

    def test_the_same_handoff_for_an_application(self):
        self.assertIs(Baton.Application.enable_handoff(self.app, "org.example", [TYPE]), self.handoff)
        self.assertIs(Baton.Application.get_for_gtk_application(self.app), self.handoff)
        self.assertIs(self.handoff.get_gtk_application(), self.app)
        self.assertEqual(self.handoff.get_launch_reason(), Baton.LaunchReason.USER)
        self.assertIsNone(self.handoff.get_launch_activity_type())

    def test_marks_before_an_idle_make_one_update_pass_with_user_info_emptied_first(self):
        window = Gtk.ApplicationWindow(application=self.app)
        entry = Gtk.Entry()
        window.set_child(entry)
        activity = Baton.Activity.new(TYPE)
        Baton.widget_set_activity(entry, activity)
        self.assertIs(Baton.widget_get_activity(entry), activity)
        activity.set_user_info_value("stale", GLib.Variant("s", "old"))
        seen = []

        def update(updated):
            seen.append(updated.props.user_info.unpack())
            updated.set_user_info_value("count", GLib.Variant("x", len(seen)))

        activity.connect("update-state", update)
        for _ in range(25):
            activity.props.needs_save = True
        self.assertTrue(activity.props.needs_save)
        drain()
        self.assertEqual(seen, [{}], "one pass, and user-info was empty when it began")
        self.assertFalse(activity.props.needs_save)
        self.assertEqual(activity.props.user_info.unpack(), {"count": 1})
        activity.set_needs_save(True)
        drain()
        self.assertEqual(len(seen), 2, "a later mark makes another pass")
        window.destroy()

    def test_an_activity_no_widget_holds_is_invalidated(self):
        window = Gtk.ApplicationWindow(application=self.app)
        label = Gtk.Label()
        window.set_child(label)
        activity = Baton.Activity.new(TYPE)
        Baton.widget_set_activity(label, activity)
        drain()
        self.assertTrue(activity.props.is_valid)
        Baton.widget_set_activity(label, None)
        drain()
        self.assertFalse(activity.props.is_valid, "its last owner let go")
        window.destroy()

    def test_a_window_keeps_its_activity(self):
        window = Gtk.ApplicationWindow(application=self.app)
        activity = Baton.Activity.new(TYPE)
        Baton.window_set_activity(window, activity)
        self.assertIs(Baton.window_get_activity(window), activity)
        del activity
        drain()
        self.assertTrue(Baton.window_get_activity(window).props.is_valid)
        window.destroy()


if __name__ == "__main__":
    unittest.main(verbosity=2)
