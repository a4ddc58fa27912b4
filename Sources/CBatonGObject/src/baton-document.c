/* BatonDocument: a GObject around one Swift Document, which the app's document controller
 * (BatonGtk's DesktopDocumentController) opens. */
#include "baton-bridge.h"
#include "baton-private.h"
#include "baton-swift.h"

/**
 * BatonDocument:
 *
 * A document of one of the types the app declared (baton_application_add_document_type()),
 * as AppKit's `NSDocument` for Handoff: while it has a file of a type that names an activity
 * type, it has that activity (#BatonDocument:activity), carrying the file's URL under
 * `NSUserActivityDocumentURL`. A continued activity that names a file of a declared type, and
 * that the app's #BatonApplication::continue handler declines (or the app has none), opens
 * that file as a document: #BatonApplication::open-document makes its windows, which restore
 * the activity. Reading and saving the file stay the app's.
 */
struct _BatonDocument {
    GObject parent_instance;
    gpointer handle;
    GFile *file;
    char *type_name;
};

G_DEFINE_FINAL_TYPE(BatonDocument, baton_document, G_TYPE_OBJECT)

static void baton_document_finalize(GObject *object) {
    BatonDocument *self = BATON_DOCUMENT(object);
    if (self->handle) baton_swift_release(self->handle);
    g_clear_object(&self->file);
    g_free(self->type_name);
    G_OBJECT_CLASS(baton_document_parent_class)->finalize(object);
}

static void baton_document_class_init(BatonDocumentClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = baton_document_finalize;
}

static void baton_document_init(BatonDocument *self) {}

BatonDocument *baton_document_new_for_handle(gpointer handle) {
    BatonDocument *self = g_object_new(BATON_TYPE_DOCUMENT, NULL);
    self->handle = handle;
    return self;
}

/**
 * baton_document_get_file:
 * @self: a document
 *
 * Gets the document's file.
 *
 * Returns: (transfer none) (nullable): the file, or %NULL for an untitled document
 */
GFile *baton_document_get_file(BatonDocument *self) {
    g_return_val_if_fail(BATON_IS_DOCUMENT(self), NULL);
    g_autofree char *uri = baton_swift_document_dup_uri(self->handle);
    g_autofree char *known = self->file ? g_file_get_uri(self->file) : NULL;
    if (g_strcmp0(uri, known) != 0) {
        g_clear_object(&self->file);
        if (uri) self->file = g_file_new_for_uri(uri);
    }
    return self->file;
}

/**
 * baton_document_get_type_name:
 * @self: a document
 *
 * Gets the name of the document's declared type.
 *
 * Returns: (transfer none): the name given to baton_application_add_document_type()
 */
const char *baton_document_get_type_name(BatonDocument *self) {
    g_return_val_if_fail(BATON_IS_DOCUMENT(self), NULL);
    return baton_keep_string(&self->type_name, baton_swift_document_dup_type_name(self->handle));
}

/**
 * baton_document_get_activity:
 * @self: a document
 *
 * Gets the document's activity: the one its type names, while it has a file. Its windows
 * share it (baton_document_add_window()); connect to its #BatonActivity::update-state to add
 * where the person is, and to its #BatonActivity::restore-state to go back there.
 *
 * Returns: (transfer none) (nullable): the activity, or %NULL
 */
BatonActivity *baton_document_get_activity(BatonDocument *self) {
    g_return_val_if_fail(BATON_IS_DOCUMENT(self), NULL);
    return baton_swift_document_get_activity(self->handle);
}

/**
 * baton_document_add_window:
 * @self: a document
 * @window: a window of the application that shows it
 *
 * Makes @window one of the document's windows: it shares the document's activity, so the
 * activity is current while the window is active, and a continued activity restores into it
 * (after the document). Call it from #BatonApplication::open-document.
 */
void baton_document_add_window(BatonDocument *self, GtkWindow *window) {
    g_return_if_fail(BATON_IS_DOCUMENT(self));
    g_return_if_fail(GTK_IS_WINDOW(window));
    baton_swift_document_add_window(self->handle, window);
}

/**
 * baton_document_close:
 * @self: a document
 *
 * Closes the document: its activity is invalidated and the app's document controller lets go
 * of it. Its windows stay open.
 */
void baton_document_close(BatonDocument *self) {
    g_return_if_fail(BATON_IS_DOCUMENT(self));
    baton_swift_document_close(self->handle);
}
