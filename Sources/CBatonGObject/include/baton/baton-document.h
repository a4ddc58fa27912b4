#pragma once

#if !defined(BATON_INSIDE) && !defined(BATON_COMPILATION)
#error "Only <baton/baton.h> can be included directly."
#endif

#include <gtk/gtk.h>
#include <baton/baton-activity.h>

G_BEGIN_DECLS

#define BATON_TYPE_DOCUMENT (baton_document_get_type())
G_DECLARE_FINAL_TYPE(BatonDocument, baton_document, BATON, DOCUMENT, GObject)

GFile *baton_document_get_file(BatonDocument *self);
const char *baton_document_get_type_name(BatonDocument *self);
BatonActivity *baton_document_get_activity(BatonDocument *self);
void baton_document_add_window(BatonDocument *self, GtkWindow *window);
void baton_document_close(BatonDocument *self);

G_END_DECLS
