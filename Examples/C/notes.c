/* Notes: a C app with Handoff, through libbaton.
 *
 * Each window holds one note. Its activity carries the text: typing marks it for saving, the
 * framework fills it lazily (update-state), elects it from GTK's focus, and batond offers it
 * to the person's other devices; a note continued from another device opens in a new window
 * (continue, then restore-state). Build it with:
 *
 *     cc notes.c -o baton-notes $(pkg-config --cflags --libs baton-1 gtk4)
 */
#include <baton/baton.h>
#include <gtk/gtk.h>
#include <string.h>

#define APP_ID "org.example.CNotes"
#define TEAM "org.example"
#define NOTE_TYPE "org.example.notes.note" /* the Python and Swift notes apps continue it too */

static char *buffer_text(GtkTextBuffer *buffer) {
    GtkTextIter start, end;
    gtk_text_buffer_get_bounds(buffer, &start, &end);
    return gtk_text_buffer_get_text(buffer, &start, &end, FALSE);
}

/* Runs lazily, once per idle after changes; user-info was emptied before. */
static void update_state(BatonActivity *activity, GtkTextBuffer *buffer) {
    g_autofree char *text = buffer_text(buffer);
    baton_activity_set_user_info_value(activity, "text", g_variant_new_string(text));
    g_autofree char *first_line = g_strstrip(g_strndup(text, strcspn(text, "\n")));
    g_autofree char *title = *first_line ? g_strdup_printf("Note: %s", first_line) : g_strdup("Note");
    baton_activity_set_title(activity, title);
}

static void restore_state(BatonActivity *activity, BatonActivity *continued, GtkTextBuffer *buffer) {
    g_autoptr(GVariant) text = baton_activity_get_user_info_value(continued, "text");
    gboolean is_text = text && g_variant_is_of_type(text, G_VARIANT_TYPE_STRING);
    gtk_text_buffer_set_text(buffer, is_text ? g_variant_get_string(text, NULL) : "", -1);
}

static void was_continued(BatonActivity *activity, const char *device_name, gpointer data) {
    g_printerr("notes: continued on %s\n", device_name);
}

static void text_changed(GtkTextBuffer *buffer, BatonActivity *activity) {
    /* Cheap on every keystroke: the marks before an idle main loop make one update pass. */
    baton_activity_set_needs_save(activity, TRUE);
}

/* A window with one note; its activity is the window's own. */
static GtkWindow *note_window_new(GtkApplication *app) {
    GtkWindow *window = GTK_WINDOW(gtk_application_window_new(app));
    gtk_window_set_title(window, "Note");
    gtk_window_set_default_size(window, 480, 320);
    GtkWidget *view = gtk_text_view_new();
    gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(view), GTK_WRAP_WORD_CHAR);
    GtkWidget *scrolled = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scrolled), view);
    gtk_window_set_child(window, scrolled);
    GtkTextBuffer *buffer = gtk_text_view_get_buffer(GTK_TEXT_VIEW(view));

    g_autoptr(BatonActivity) activity = baton_activity_new(NOTE_TYPE);
    baton_activity_set_title(activity, "Note");
    g_signal_connect_object(activity, "update-state", G_CALLBACK(update_state), buffer, 0);
    g_signal_connect_object(activity, "restore-state", G_CALLBACK(restore_state), buffer, 0);
    g_signal_connect(activity, "was-continued", G_CALLBACK(was_continued), NULL);
    baton_window_set_activity(window, activity); /* the window keeps a reference */
    g_signal_connect_object(buffer, "changed", G_CALLBACK(text_changed), activity, 0);
    return window;
}

/* Not emitted when batond started the app to continue a note: that brings its window. */
static void activate(BatonApplication *handoff, GtkApplication *app) {
    gtk_window_present(note_window_new(app));
}

static gboolean continue_note(BatonApplication *handoff, BatonActivity *activity, GtkApplication *app) {
    GtkWindow *window = note_window_new(app);
    GList objects = { .data = window };
    baton_application_restore(handoff, activity, &objects); /* emits its activity's restore-state */
    gtk_window_present(window);
    return TRUE;
}

static void did_fail(BatonApplication *handoff, const char *activity_type, GError *error, gpointer data) {
    if (!g_error_matches(error, BATON_ERROR, BATON_ERROR_CANCELLED))
        g_printerr("notes: could not continue %s: %s\n", activity_type, error->message);
}

static void new_note(GSimpleAction *action, GVariant *parameter, GtkApplication *app) {
    gtk_window_present(note_window_new(app));
}

int main(int argc, char **argv) {
    g_autoptr(GtkApplication) app = gtk_application_new(APP_ID, G_APPLICATION_DEFAULT_FLAGS);
    /* Before g_application_run(): registers with batond at startup. The app keeps it. */
    const char *const types[] = { NOTE_TYPE, NULL };
    BatonApplication *handoff = baton_application_enable_handoff(app, TEAM, types);
    g_signal_connect(handoff, "activate", G_CALLBACK(activate), app);
    g_signal_connect(handoff, "continue", G_CALLBACK(continue_note), app);
    g_signal_connect(handoff, "did-fail", G_CALLBACK(did_fail), NULL);

    g_autoptr(GSimpleAction) action = g_simple_action_new("new-note", NULL);
    g_signal_connect(action, "activate", G_CALLBACK(new_note), app);
    g_action_map_add_action(G_ACTION_MAP(app), G_ACTION(action));
    gtk_application_set_accels_for_action(app, "app.new-note", (const char *[]) { "<Control>n", NULL });
    return g_application_run(G_APPLICATION(app), argc, argv);
}
