#!/usr/bin/gjs -m
// Notes: a GJS app with Handoff, through libbaton (GObject Introspection).
//
// Each window holds one note. Its activity carries the text: typing marks it for saving, the
// framework fills it lazily (update-state), elects it from GTK's focus, and batond offers it
// to the person's other devices; a note continued from another device opens in a new window
// (continue, then restore-state). Runs as it stands once libbaton is installed (or with
// GI_TYPELIB_PATH and LD_LIBRARY_PATH naming a build of it: see scripts/gir.sh).
import Baton from 'gi://Baton?version=1.0';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';
import System from 'system';

const APP_ID = 'org.example.JSNotes';
const TEAM = 'org.example';
const NOTE_TYPE = 'org.example.notes.note'; // the Python, C and Swift notes apps continue it too

/** A window with one note; its activity is the window's own. */
const NoteWindow = GObject.registerClass(class NoteWindow extends Gtk.ApplicationWindow {
    constructor(app) {
        super({application: app, title: 'Note', default_width: 480, default_height: 320});
        this._view = new Gtk.TextView({wrap_mode: Gtk.WrapMode.WORD_CHAR});
        this.set_child(new Gtk.ScrolledWindow({child: this._view}));
        const buffer = this._view.get_buffer();

        this.activity = Baton.Activity.new(NOTE_TYPE);
        this.activity.title = 'Note';
        this.activity.connect('update-state', activity => this._updateState(activity));
        this.activity.connect('restore-state', (_activity, continued) => this._restoreState(continued));
        this.activity.connect('was-continued', (_activity, device) => printerr(`notes: continued on ${device}`));
        Baton.window_set_activity(this, this.activity);
        // Cheap on every keystroke: the marks before an idle main loop make one update pass.
        buffer.connect('changed', () => this.activity.set_needs_save(true));
    }

    get text() {
        const buffer = this._view.get_buffer();
        return buffer.get_text(buffer.get_start_iter(), buffer.get_end_iter(), false);
    }

    /** Runs lazily, once per idle after changes; user-info was emptied before. */
    _updateState(activity) {
        const text = this.text;
        activity.set_user_info_value('text', new GLib.Variant('s', text));
        const firstLine = text.split('\n', 1)[0].trim();
        activity.title = firstLine ? `Note: ${firstLine}` : 'Note';
    }

    _restoreState(continued) {
        const value = continued.get_user_info_value('text');
        this._view.get_buffer().set_text(value ? value.unpack() : '', -1);
    }
});

const app = new Gtk.Application({application_id: APP_ID, flags: Gio.ApplicationFlags.DEFAULT_FLAGS});
// Before run(): registers with batond at startup. The application keeps it.
const handoff = Baton.Application.enable_handoff(app, TEAM, [NOTE_TYPE]);
// Not emitted when batond started the app to continue a note: that brings its window.
handoff.connect('activate', () => new NoteWindow(app).present());
handoff.connect('continue', (_handoff, activity) => {
    const window = new NoteWindow(app);
    handoff.restore(activity, [window]); // emits the window activity's restore-state
    window.present();
    return true;
});
handoff.connect('did-fail', (_handoff, activityType, error) => {
    if (!error.matches(Baton.error_quark(), Baton.Error.CANCELLED))
        printerr(`notes: could not continue ${activityType}: ${error.message}`);
});
const newNote = new Gio.SimpleAction({name: 'new-note'});
newNote.connect('activate', () => new NoteWindow(app).present());
app.add_action(newNote);
app.set_accels_for_action('app.new-note', ['<Control>n']);
app.run([System.programInvocationName, ...ARGV]);
