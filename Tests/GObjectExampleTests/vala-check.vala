// A Vala program on libbaton's baton-1.vapi: made by GObjectAPITests with
// `valac --pkg baton-1`, then run. Exits 0 and prints "vala: ok" when the binding works.
int main () {
    var activity = new Baton.Activity ("org.example.notes.note");
    activity.title = "From Vala";
    activity.set_user_info_value ("text", new Variant.string ("hello"));
    activity.add_user_info_entries (new Variant.parsed ("{'count': <int64 3>}"));
    Variant? text = activity.get_user_info_value ("text");
    if (activity.title != "From Vala" || text == null || text.get_string () != "hello") {
        printerr ("vala: the title or user-info did not come back\n");
        return 1;
    }
    if (activity.user_info.n_children () != 2) {
        printerr ("vala: user-info has %zu entries, not 2\n", activity.user_info.n_children ());
        return 1;
    }
    try {
        activity.set_webpage_url ("ftp://example.org/file");
        printerr ("vala: an ftp URL was accepted\n");
        return 1;
    } catch (Baton.Error.INVALID_WEBPAGE_URL error) {
        // Refused, in Baton's error domain.
    } catch (GLib.Error error) {
        printerr ("vala: the wrong error: %s\n", error.message);
        return 1;
    }
    bool updated = false;
    activity.update_state.connect (() => updated = true);
    print ("vala: ok\n");
    return 0;
}
