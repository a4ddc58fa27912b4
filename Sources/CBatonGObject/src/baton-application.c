/* BatonApplication: Handoff for a GtkApplication, a companion object around the Swift
 * BatonApplication that wraps it. */
#include "baton-bridge.h"
#include "baton-private.h"
#include "baton-swift.h"

/**
 * BatonApplication:
 *
 * Handoff for a #GtkApplication: registers it with the Baton service, elects the current
 * activity from GTK's focus and window activation, and delivers activities continued from
 * other devices through #BatonApplication::will-continue, #BatonApplication::continue and
 * #BatonApplication::did-fail.
 *
 * Made by baton_application_enable_handoff(), once per application; the #GtkApplication
 * keeps it alive. Every #GtkApplicationWindow of the application takes part in election:
 * while it is the active window, the activity of the focused widget's chain is current.
 * Another window (a dialog) takes part once an activity is set on it or on a widget in it;
 * until then, while it is active, the current activity stays.
 */
struct _BatonApplication {
    GObject parent_instance;
    GtkApplication *application; /* not owned: the application owns this object */
    gpointer handle;
    char *launch_activity_type;
    char *activation_token;
};

G_DEFINE_FINAL_TYPE(BatonApplication, baton_application, G_TYPE_OBJECT)

#define DATA_KEY "baton-application"

enum { SIGNAL_ACTIVATE, SIGNAL_WILL_CONTINUE, SIGNAL_CONTINUE, SIGNAL_DID_FAIL, SIGNAL_OPEN_DOCUMENT, N_SIGNALS };
static guint signals[N_SIGNALS];

static void baton_application_finalize(GObject *object) {
    BatonApplication *self = BATON_APPLICATION(object);
    if (self->handle) baton_swift_release(self->handle);
    g_free(self->launch_activity_type);
    g_free(self->activation_token);
    G_OBJECT_CLASS(baton_application_parent_class)->finalize(object);
}

static void baton_application_class_init(BatonApplicationClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = baton_application_finalize;

    /**
     * BatonApplication::activate:
     * @self: the application's Handoff
     *
     * The application was activated (#GApplication::activate), except when the Baton service
     * started it to continue an activity: then the continued activity brings its own window.
     * Connect here, rather than to #GApplication::activate, to show the default window.
     */
    signals[SIGNAL_ACTIVATE] = g_signal_new("activate", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                            NULL, NULL, G_TYPE_NONE, 0);
    /**
     * BatonApplication::will-continue:
     * @self: the application's Handoff
     * @activity_type: the type of the activity on its way
     *
     * A continuation began, before its data arrived.
     *
     * Returns: %TRUE if the app shows progress itself, %FALSE to let Baton show it
     */
    signals[SIGNAL_WILL_CONTINUE] = g_signal_new("will-continue", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                                 g_signal_accumulator_true_handled, NULL, NULL, G_TYPE_BOOLEAN, 1,
                                                 G_TYPE_STRING);
    /**
     * BatonApplication::continue:
     * @self: the application's Handoff
     * @activity: the activity continued from another device
     *
     * Put the app into @activity's state: make or find the window that shows it, then hand
     * the widgets and windows that restore it to baton_application_restore() (now or later).
     *
     * Returns: %TRUE if the app handled @activity; %FALSE fails the continuation, unless
     *   Baton reopens the document it names
     */
    signals[SIGNAL_CONTINUE] = g_signal_new("continue", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                            g_signal_accumulator_true_handled, NULL, NULL, G_TYPE_BOOLEAN, 1,
                                            BATON_TYPE_ACTIVITY);
    /**
     * BatonApplication::did-fail:
     * @self: the application's Handoff
     * @activity_type: the type of the activity that could not be continued
     * @error: why, in %BATON_ERROR
     *
     * A continuation failed. With no handler connected, Baton shows the error in a dialog
     * (unless it was cancelled).
     */
    signals[SIGNAL_DID_FAIL] = g_signal_new("did-fail", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                            NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_ERROR);
    /**
     * BatonApplication::open-document:
     * @self: the application's Handoff
     * @document: the document opened
     *
     * A document was opened (baton_application_open_document(), or a continued activity's
     * document that #BatonApplication::continue declined): read its file, make its window and
     * hand it to baton_document_add_window(), then present it.
     */
    signals[SIGNAL_OPEN_DOCUMENT] = g_signal_new("open-document", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                                 NULL, NULL, NULL, G_TYPE_NONE, 1, BATON_TYPE_DOCUMENT);
}

static void baton_application_init(BatonApplication *self) {}

/* An application window (an AdwApplicationWindow too) takes part in election as soon as it
 * joins; another window (a dialog) once an activity is set on it or in it. */
static void window_added(GtkApplication *application, GtkWindow *window, BatonApplication *self) {
    if (GTK_IS_APPLICATION_WINDOW(window)) baton_swift_application_window_added(self->handle, window);
}

/**
 * baton_application_enable_handoff:
 * @application: the app's #GtkApplication (or a subclass, such as #AdwApplication)
 * @team_identifier: the app's team, such as `org.example`: activities go only to apps of the
 *   same team
 * @activity_types: (array zero-terminated=1): the activity types the app continues
 *
 * Turns Handoff on for @application: call it once, before g_application_run(). The app
 * registers with the Baton service at #GApplication::startup.
 *
 * Returns: (transfer none): the application's Handoff, which @application keeps alive
 */
BatonApplication *baton_application_enable_handoff(GtkApplication *application, const char *team_identifier,
                                                   const char *const *activity_types) {
    g_return_val_if_fail(GTK_IS_APPLICATION(application), NULL);
    g_return_val_if_fail(team_identifier != NULL, NULL);
    g_return_val_if_fail(activity_types != NULL, NULL);
    BatonApplication *existing = baton_application_get_for_gtk_application(application);
    if (existing) return existing;
    BatonApplication *self = g_object_new(BATON_TYPE_APPLICATION, NULL);
    self->application = application;
    g_object_set_data_full(G_OBJECT(application), DATA_KEY, self, g_object_unref);
    self->handle = baton_swift_application_create(self, application, team_identifier, activity_types);
    g_signal_connect_object(application, "window-added", G_CALLBACK(window_added), self, 0);
    for (GList *window = gtk_application_get_windows(application); window; window = window->next)
        window_added(application, window->data, self);
    if (g_application_get_is_registered(G_APPLICATION(application)) && !g_application_get_is_remote(G_APPLICATION(application)))
        g_warning("baton_application_enable_handoff: %s started up already, so it does not register with the "
                  "Baton service: enable Handoff before g_application_run()",
                  g_application_get_application_id(G_APPLICATION(application)));
    return self;
}

/**
 * baton_application_get_for_gtk_application:
 * @application: a #GtkApplication
 *
 * Finds the Handoff baton_application_enable_handoff() made for @application.
 *
 * Returns: (transfer none) (nullable): @application's Handoff, if it was enabled
 */
BatonApplication *baton_application_get_for_gtk_application(GtkApplication *application) {
    g_return_val_if_fail(GTK_IS_APPLICATION(application), NULL);
    return g_object_get_data(G_OBJECT(application), DATA_KEY);
}

/**
 * baton_application_get_gtk_application:
 * @self: the application's Handoff
 *
 * Gets the #GtkApplication whose Handoff this is.
 *
 * Returns: (transfer none): the #GtkApplication
 */
GtkApplication *baton_application_get_gtk_application(BatonApplication *self) {
    g_return_val_if_fail(BATON_IS_APPLICATION(self), NULL);
    return self->application;
}

/**
 * baton_application_get_launch_reason:
 * @self: the application's Handoff
 *
 * Gets why this process was started: by a person, or by the Baton service to continue an activity.
 *
 * Returns: why this process was started
 */
BatonLaunchReason baton_application_get_launch_reason(BatonApplication *self) {
    g_return_val_if_fail(BATON_IS_APPLICATION(self), BATON_LAUNCH_REASON_USER);
    return baton_swift_application_get_launch_reason(self->handle);
}

/**
 * baton_application_get_launch_activity_type:
 * @self: the application's Handoff
 *
 * Gets the type of the activity the Baton service started the app to continue.
 *
 * Returns: (transfer none) (nullable): the type of the activity the service started the app
 *   to continue, or %NULL for an ordinary launch
 */
const char *baton_application_get_launch_activity_type(BatonApplication *self) {
    g_return_val_if_fail(BATON_IS_APPLICATION(self), NULL);
    return baton_keep_string(&self->launch_activity_type, baton_swift_application_dup_launch_activity_type(self->handle));
}

/**
 * baton_application_get_activation_token:
 * @self: the application's Handoff
 *
 * The desktop activation token of the continuation the person asked for, which the next
 * window restored carries to the front; else the one the process was started with.
 *
 * Returns: (transfer none) (nullable): the token, or %NULL
 */
const char *baton_application_get_activation_token(BatonApplication *self) {
    g_return_val_if_fail(BATON_IS_APPLICATION(self), NULL);
    return baton_keep_string(&self->activation_token, baton_swift_application_dup_activation_token(self->handle));
}

/**
 * baton_application_get_current_activity:
 * @self: the application's Handoff
 *
 * Gets the activity the app offers now, elected from the focus in its active window.
 *
 * Returns: (transfer none) (nullable): the current activity, if it is one the app made
 */
BatonActivity *baton_application_get_current_activity(BatonApplication *self) {
    g_return_val_if_fail(BATON_IS_APPLICATION(self), NULL);
    return baton_swift_application_get_current_activity(self->handle);
}

/**
 * baton_application_restore:
 * @self: the application's Handoff
 * @activity: the activity given to #BatonApplication::continue
 * @objects: (element-type GtkWidget) (transfer none): the widgets and windows that present it
 *
 * Restores @activity: each of @objects whose own activity (baton_widget_set_activity())
 * is set emits #BatonActivity::restore-state with @activity, and a restored window comes to
 * the front with the continuation's activation token. Call it once per continuation, from
 * #BatonApplication::continue or later.
 */
void baton_application_restore(BatonApplication *self, BatonActivity *activity, GList *objects) {
    g_return_if_fail(BATON_IS_APPLICATION(self));
    g_return_if_fail(BATON_IS_ACTIVITY(activity));
    guint count = g_list_length(objects);
    g_autofree GtkWidget **widgets = g_new0(GtkWidget *, count + 1);
    guint index = 0;
    for (GList *object = objects; object; object = object->next) {
        if (GTK_IS_WIDGET(object->data)) widgets[index++] = object->data;
    }
    baton_swift_application_restore(self->handle, baton_activity_get_handle(activity), widgets, index);
}

/**
 * baton_application_add_document_type:
 * @self: the application's Handoff
 * @name: the type's name, such as `Note`
 * @extensions: (array zero-terminated=1): its file name extensions, without the dot
 * @mime_types: (array zero-terminated=1): its MIME types, for files whose name has none of
 *   @extensions
 * @activity_type: (nullable): the activity type of its documents (Apple's
 *   `NSUbiquitousDocumentUserActivityType`), or %NULL for none
 *
 * Declares a document type, as an Info.plist's `CFBundleDocumentTypes` does: a #BatonDocument
 * of it gets an activity of @activity_type, and a continued activity of that type naming such
 * a file reopens it when #BatonApplication::continue declines the activity.
 */
void baton_application_add_document_type(BatonApplication *self, const char *name, const char *const *extensions,
                                         const char *const *mime_types, const char *activity_type) {
    g_return_if_fail(BATON_IS_APPLICATION(self));
    g_return_if_fail(name != NULL && extensions != NULL && mime_types != NULL);
    baton_swift_application_add_document_type(self->handle, name, extensions, mime_types, activity_type);
}

/**
 * baton_application_open_document:
 * @self: the application's Handoff
 * @file: a file of a declared type
 * @error: where a file of no declared type, or no file, is reported (%BATON_ERROR)
 *
 * Opens @file as a document, or finds it open: a new one emits
 * #BatonApplication::open-document, which makes its windows.
 *
 * Returns: (transfer none): the document, or %NULL on error
 */
BatonDocument *baton_application_open_document(BatonApplication *self, GFile *file, GError **error) {
    g_return_val_if_fail(BATON_IS_APPLICATION(self), NULL);
    g_return_val_if_fail(G_IS_FILE(file), NULL);
    g_autofree char *uri = g_file_get_uri(file);
    return baton_swift_application_open_document(self->handle, uri, error);
}

void baton_application_emit_open_document(BatonApplication *self, BatonDocument *document) {
    g_signal_emit(self, signals[SIGNAL_OPEN_DOCUMENT], 0, document);
}

void baton_application_emit_activate(BatonApplication *self) {
    g_signal_emit(self, signals[SIGNAL_ACTIVATE], 0);
}

gboolean baton_application_emit_will_continue(BatonApplication *self, const char *activity_type) {
    gboolean shows_progress = FALSE;
    g_signal_emit(self, signals[SIGNAL_WILL_CONTINUE], 0, activity_type, &shows_progress);
    return shows_progress;
}

gboolean baton_application_emit_continue(BatonApplication *self, BatonActivity *activity) {
    gboolean handled = FALSE;
    g_signal_emit(self, signals[SIGNAL_CONTINUE], 0, activity, &handled);
    return handled;
}

gboolean baton_application_emit_did_fail(BatonApplication *self, const char *activity_type, gint code,
                                         const char *message) {
    if (!g_signal_has_handler_pending(self, signals[SIGNAL_DID_FAIL], 0, FALSE)) return FALSE;
    g_autoptr(GError) error = g_error_new_literal(BATON_ERROR, code, message);
    g_signal_emit(self, signals[SIGNAL_DID_FAIL], 0, activity_type, error);
    return TRUE;
}
