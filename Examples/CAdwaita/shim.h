// libadwaita for MailComposer (the example app; BatonGtk itself does not depend on it), and
// what Swift cannot import from it directly: cast macros, each a one-line static inline wrapper.
#include <adwaita.h>

static inline AdwApplicationWindow *mail_adw_application_window(gpointer instance) { return ADW_APPLICATION_WINDOW(instance); }
static inline AdwHeaderBar *mail_adw_header_bar(gpointer instance) { return ADW_HEADER_BAR(instance); }
static inline AdwToastOverlay *mail_adw_toast_overlay(gpointer instance) { return ADW_TOAST_OVERLAY(instance); }
static inline AdwStatusPage *mail_adw_status_page(gpointer instance) { return ADW_STATUS_PAGE(instance); }
static inline AdwWindowTitle *mail_adw_window_title(gpointer instance) { return ADW_WINDOW_TITLE(instance); }
static inline AdwAboutWindow *mail_adw_about_window(gpointer instance) { return ADW_ABOUT_WINDOW(instance); }
static inline AdwMessageDialog *mail_adw_message_dialog(gpointer instance) { return ADW_MESSAGE_DIALOG(instance); }
static inline GFile *mail_file_at(GFile **files, gint index) { return files[index]; }
