// libadwaita for the apps (MailComposer, the Baton app; BatonGtk itself does not depend on it),
// and what Swift cannot import from it directly: cast macros, each a one-line static inline wrapper.
#include <adwaita.h>

static inline AdwApplicationWindow *baton_adw_application_window(gpointer instance) { return ADW_APPLICATION_WINDOW(instance); }
static inline AdwHeaderBar *baton_adw_header_bar(gpointer instance) { return ADW_HEADER_BAR(instance); }
static inline AdwToastOverlay *baton_adw_toast_overlay(gpointer instance) { return ADW_TOAST_OVERLAY(instance); }
static inline AdwStatusPage *baton_adw_status_page(gpointer instance) { return ADW_STATUS_PAGE(instance); }
static inline AdwWindowTitle *baton_adw_window_title(gpointer instance) { return ADW_WINDOW_TITLE(instance); }
static inline AdwAboutWindow *baton_adw_about_window(gpointer instance) { return ADW_ABOUT_WINDOW(instance); }
static inline AdwMessageDialog *baton_adw_message_dialog(gpointer instance) { return ADW_MESSAGE_DIALOG(instance); }
static inline AdwPreferencesGroup *baton_adw_preferences_group(gpointer instance) { return ADW_PREFERENCES_GROUP(instance); }
static inline AdwPreferencesPage *baton_adw_preferences_page(gpointer instance) { return ADW_PREFERENCES_PAGE(instance); }
static inline AdwActionRow *baton_adw_action_row(gpointer instance) { return ADW_ACTION_ROW(instance); }
static inline AdwPreferencesRow *baton_adw_preferences_row(gpointer instance) { return ADW_PREFERENCES_ROW(instance); }
static inline AdwViewStack *baton_adw_view_stack(gpointer instance) { return ADW_VIEW_STACK(instance); }
static inline AdwViewSwitcherTitle *baton_adw_view_switcher_title(gpointer instance) { return ADW_VIEW_SWITCHER_TITLE(instance); }
static inline AdwEntryRow *baton_adw_entry_row(gpointer instance) { return ADW_ENTRY_ROW(instance); }
static inline AdwExpanderRow *baton_adw_expander_row(gpointer instance) { return ADW_EXPANDER_ROW(instance); }
static inline AdwToast *baton_adw_toast(gpointer instance) { return ADW_TOAST(instance); }
