/* BatonActivity: a GObject around one Swift UserActivity, which the Baton framework manages. */
#include "baton-bridge.h"
#include "baton-private.h"
#include "baton-swift.h"

#include <unistd.h>

/**
 * BatonActivity:
 *
 * What the person is doing, as a type, a title and a small #BatonActivity:user-info: the
 * unit Handoff moves to another device.
 *
 * Set an activity on a widget or window (baton_widget_set_activity()) and Baton manages it:
 * it becomes current when that widget has the focus in the active window, and setting
 * #BatonActivity:needs-save schedules one lazy update pass, in which #BatonActivity:user-info
 * is emptied and #BatonActivity::update-state asks the app to fill it again.
 */
struct _BatonActivity {
    GObject parent_instance;
    char *activity_type;
    gpointer handle;
    /* What the getters return (transfer none): read from the Swift half on each call, and
     * replaced only when the value changed. */
    char *title;
    char *webpage_url;
    GVariant *user_info;
};

G_DEFINE_FINAL_TYPE(BatonActivity, baton_activity, G_TYPE_OBJECT)

enum {
    PROP_0,
    PROP_ACTIVITY_TYPE,
    PROP_TITLE,
    PROP_WEBPAGE_URL,
    PROP_ELIGIBLE_FOR_HANDOFF,
    PROP_NEEDS_SAVE,
    PROP_SUPPORTS_CONTINUATION_STREAMS,
    PROP_USER_INFO,
    PROP_IS_CURRENT,
    PROP_IS_VALID,
    N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum { SIGNAL_UPDATE_STATE, SIGNAL_RESTORE_STATE, SIGNAL_WAS_CONTINUED, SIGNAL_STREAM_RECEIVED, N_SIGNALS };
static guint signals[N_SIGNALS];

gpointer baton_activity_get_handle(BatonActivity *self) {
    g_return_val_if_fail(BATON_IS_ACTIVITY(self), NULL);
    if (self->handle == NULL) {
        self->handle = baton_swift_activity_create(self, self->activity_type ? self->activity_type : "");
    }
    return self->handle;
}

BatonActivity *baton_activity_new_for_handle(const char *activity_type, gpointer handle) {
    BatonActivity *self = g_object_new(BATON_TYPE_ACTIVITY, "activity-type", activity_type, NULL);
    self->handle = handle;
    return self;
}

static void baton_activity_finalize(GObject *object) {
    BatonActivity *self = BATON_ACTIVITY(object);
    if (self->handle) baton_swift_release(self->handle);
    g_free(self->activity_type);
    g_free(self->title);
    g_free(self->webpage_url);
    g_clear_pointer(&self->user_info, g_variant_unref);
    G_OBJECT_CLASS(baton_activity_parent_class)->finalize(object);
}

static void baton_activity_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    BatonActivity *self = BATON_ACTIVITY(object);
    switch (id) {
    case PROP_ACTIVITY_TYPE: g_value_set_string(value, self->activity_type); break;
    case PROP_TITLE: g_value_set_string(value, baton_activity_get_title(self)); break;
    case PROP_WEBPAGE_URL: g_value_set_string(value, baton_activity_get_webpage_url(self)); break;
    case PROP_ELIGIBLE_FOR_HANDOFF: g_value_set_boolean(value, baton_activity_get_eligible_for_handoff(self)); break;
    case PROP_NEEDS_SAVE: g_value_set_boolean(value, baton_activity_get_needs_save(self)); break;
    case PROP_SUPPORTS_CONTINUATION_STREAMS:
        g_value_set_boolean(value, baton_activity_get_supports_continuation_streams(self));
        break;
    case PROP_USER_INFO: g_value_set_variant(value, baton_activity_get_user_info(self)); break;
    case PROP_IS_CURRENT: g_value_set_boolean(value, baton_activity_get_is_current(self)); break;
    case PROP_IS_VALID: g_value_set_boolean(value, baton_activity_get_is_valid(self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void baton_activity_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    BatonActivity *self = BATON_ACTIVITY(object);
    switch (id) {
    case PROP_ACTIVITY_TYPE: self->activity_type = g_value_dup_string(value); break;
    case PROP_TITLE: baton_activity_set_title(self, g_value_get_string(value)); break;
    case PROP_WEBPAGE_URL: {
        g_autoptr(GError) error = NULL;
        if (!baton_activity_set_webpage_url(self, g_value_get_string(value), &error))
            g_warning("BatonActivity:webpage-url: %s", error->message);
        break;
    }
    case PROP_ELIGIBLE_FOR_HANDOFF: baton_activity_set_eligible_for_handoff(self, g_value_get_boolean(value)); break;
    case PROP_NEEDS_SAVE: baton_activity_set_needs_save(self, g_value_get_boolean(value)); break;
    case PROP_SUPPORTS_CONTINUATION_STREAMS:
        baton_activity_set_supports_continuation_streams(self, g_value_get_boolean(value));
        break;
    case PROP_USER_INFO: baton_activity_set_user_info(self, g_value_get_variant(value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void baton_activity_class_init(BatonActivityClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->finalize = baton_activity_finalize;
    object_class->get_property = baton_activity_get_property;
    object_class->set_property = baton_activity_set_property;
    GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;
    GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

    /**
     * BatonActivity:activity-type:
     *
     * The reverse-DNS type of the activity, such as `org.example.notes.note`.
     */
    properties[PROP_ACTIVITY_TYPE] = g_param_spec_string("activity-type", NULL, NULL, NULL,
        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * BatonActivity:title:
     *
     * The title people see when they are offered the activity (cut to the service's limit).
     */
    properties[PROP_TITLE] = g_param_spec_string("title", NULL, NULL, NULL, rw);
    /**
     * BatonActivity:webpage-url:
     *
     * An http or https URL that continues the activity in a browser where no app claims it.
     */
    properties[PROP_WEBPAGE_URL] = g_param_spec_string("webpage-url", NULL, NULL, NULL, rw);
    /**
     * BatonActivity:eligible-for-handoff:
     *
     * Whether the activity may be offered to other devices.
     */
    properties[PROP_ELIGIBLE_FOR_HANDOFF] = g_param_spec_boolean("eligible-for-handoff", NULL, NULL, TRUE, rw);
    /**
     * BatonActivity:needs-save:
     *
     * Whether the activity's state changed since it was last saved. Setting it to %TRUE is
     * cheap: any number of marks before the main loop is idle give one update pass.
     */
    properties[PROP_NEEDS_SAVE] = g_param_spec_boolean("needs-save", NULL, NULL, FALSE, rw);
    /**
     * BatonActivity:supports-continuation-streams:
     *
     * Whether the app continuing the activity may open a stream to this one.
     */
    properties[PROP_SUPPORTS_CONTINUATION_STREAMS] =
        g_param_spec_boolean("supports-continuation-streams", NULL, NULL, FALSE, rw);
    /**
     * BatonActivity:user-info:
     *
     * The state needed to continue the activity, a #GVariant of type `a{sv}` (empty, never
     * %NULL). Values are strings, booleans, integers (`x`), doubles, byte arrays (`ay`),
     * arrays (`av`), dictionaries (`a{sv}`) and nothing (`mv`); a URL or UUID arrives as a
     * string, a date as seconds since 1970 (`d`).
     */
    properties[PROP_USER_INFO] = g_param_spec_variant("user-info", NULL, NULL, G_VARIANT_TYPE_VARDICT, NULL, rw);
    /**
     * BatonActivity:is-current:
     *
     * Whether this is the app's current activity, the one offered to other devices.
     */
    properties[PROP_IS_CURRENT] = g_param_spec_boolean("is-current", NULL, NULL, FALSE, ro);
    /**
     * BatonActivity:is-valid:
     *
     * %FALSE once the activity was invalidated.
     */
    properties[PROP_IS_VALID] = g_param_spec_boolean("is-valid", NULL, NULL, TRUE, ro);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    /**
     * BatonActivity::update-state:
     * @self: the activity
     *
     * Runs in the lazy update pass that follows #BatonActivity:needs-save: fill
     * #BatonActivity:user-info here. For an activity set on a widget or window,
     * #BatonActivity:user-info was emptied just before.
     */
    signals[SIGNAL_UPDATE_STATE] = g_signal_new("update-state", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                                0, NULL, NULL, NULL, G_TYPE_NONE, 0);
    /**
     * BatonActivity::restore-state:
     * @self: the activity of a widget or window handed to baton_application_restore()
     * @continued: the activity continued from another device
     *
     * Put @continued's state into the widget or window that owns @self.
     */
    signals[SIGNAL_RESTORE_STATE] = g_signal_new("restore-state", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                                 0, NULL, NULL, NULL, G_TYPE_NONE, 1, BATON_TYPE_ACTIVITY);
    /**
     * BatonActivity::was-continued:
     * @self: the activity
     * @device_name: the name of the device that continued it, as the person knows it
     *
     * Another device continued the activity.
     */
    signals[SIGNAL_WAS_CONTINUED] = g_signal_new("was-continued", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                                 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
    /**
     * BatonActivity::stream-received:
     * @self: the activity, on the device it came from
     * @stream: a duplex stream to the app continuing it
     *
     * The app continuing the activity opened a continuation stream
     * (baton_activity_get_continuation_streams()): read its request from @stream's input,
     * answer on its output, then close it. With no handler connected, the stream is closed.
     */
    signals[SIGNAL_STREAM_RECEIVED] = g_signal_new("stream-received", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                                   0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_IO_STREAM);
}

static void baton_activity_init(BatonActivity *self) {}

/**
 * baton_activity_new:
 * @activity_type: the reverse-DNS type, such as `org.example.notes.note`
 *
 * Creates an activity.
 *
 * Returns: (transfer full): the new activity
 */
BatonActivity *baton_activity_new(const char *activity_type) {
    g_return_val_if_fail(activity_type != NULL, NULL);
    return g_object_new(BATON_TYPE_ACTIVITY, "activity-type", activity_type, NULL);
}

/**
 * baton_activity_get_activity_type:
 * @self: an activity
 *
 * Gets #BatonActivity:activity-type.
 *
 * Returns: (transfer none): the activity's type
 */
const char *baton_activity_get_activity_type(BatonActivity *self) {
    g_return_val_if_fail(BATON_IS_ACTIVITY(self), NULL);
    return self->activity_type;
}

/**
 * baton_activity_get_title:
 * @self: an activity
 *
 * Gets #BatonActivity:title.
 *
 * Returns: (transfer none) (nullable): the title
 */
const char *baton_activity_get_title(BatonActivity *self) {
    g_return_val_if_fail(BATON_IS_ACTIVITY(self), NULL);
    return baton_keep_string(&self->title, baton_swift_activity_dup_title(baton_activity_get_handle(self)));
}

/**
 * baton_activity_set_title:
 * @self: an activity
 * @title: (nullable): the title
 *
 * Sets #BatonActivity:title.
 */
void baton_activity_set_title(BatonActivity *self, const char *title) {
    g_return_if_fail(BATON_IS_ACTIVITY(self));
    baton_swift_activity_set_title(baton_activity_get_handle(self), title);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_TITLE]);
}

/**
 * baton_activity_get_webpage_url:
 * @self: an activity
 *
 * Gets #BatonActivity:webpage-url.
 *
 * Returns: (transfer none) (nullable): the web page URL
 */
const char *baton_activity_get_webpage_url(BatonActivity *self) {
    g_return_val_if_fail(BATON_IS_ACTIVITY(self), NULL);
    return baton_keep_string(&self->webpage_url, baton_swift_activity_dup_webpage_url(baton_activity_get_handle(self)));
}

/**
 * baton_activity_set_webpage_url:
 * @self: an activity
 * @url: (nullable): an absolute http or https URL, or %NULL for none
 * @error: where an invalid URL is reported (%BATON_ERROR)
 *
 * Sets #BatonActivity:webpage-url; an invalid URL leaves the activity unchanged.
 *
 * Returns: whether the URL was set
 */
gboolean baton_activity_set_webpage_url(BatonActivity *self, const char *url, GError **error) {
    g_return_val_if_fail(BATON_IS_ACTIVITY(self), FALSE);
    if (!baton_swift_activity_set_webpage_url(baton_activity_get_handle(self), url, error)) return FALSE;
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_WEBPAGE_URL]);
    return TRUE;
}

static gboolean get_flag(BatonActivity *self, BatonSwiftFlag flag) {
    g_return_val_if_fail(BATON_IS_ACTIVITY(self), FALSE);
    return baton_swift_activity_get_flag(baton_activity_get_handle(self), flag);
}

static void set_flag(BatonActivity *self, BatonSwiftFlag flag, gboolean value, guint property) {
    g_return_if_fail(BATON_IS_ACTIVITY(self));
    if (baton_swift_activity_get_flag(baton_activity_get_handle(self), flag) == !!value) return;
    baton_swift_activity_set_flag(self->handle, flag, value);
    g_object_notify_by_pspec(G_OBJECT(self), properties[property]);
}

/**
 * baton_activity_get_eligible_for_handoff:
 * @self: an activity
 *
 * Gets #BatonActivity:eligible-for-handoff.
 *
 * Returns: whether the activity may be offered to other devices
 */
gboolean baton_activity_get_eligible_for_handoff(BatonActivity *self) {
    return get_flag(self, BATON_SWIFT_FLAG_ELIGIBLE);
}

/**
 * baton_activity_set_eligible_for_handoff:
 * @self: an activity
 * @eligible: whether it may be offered
 *
 * Sets #BatonActivity:eligible-for-handoff.
 */
void baton_activity_set_eligible_for_handoff(BatonActivity *self, gboolean eligible) {
    set_flag(self, BATON_SWIFT_FLAG_ELIGIBLE, eligible, PROP_ELIGIBLE_FOR_HANDOFF);
}

/**
 * baton_activity_get_needs_save:
 * @self: an activity
 *
 * Gets #BatonActivity:needs-save.
 *
 * Returns: whether an update pass is due
 */
gboolean baton_activity_get_needs_save(BatonActivity *self) {
    return get_flag(self, BATON_SWIFT_FLAG_NEEDS_SAVE);
}

/**
 * baton_activity_set_needs_save:
 * @self: an activity
 * @needs_save: %TRUE to schedule an update pass
 *
 * Sets #BatonActivity:needs-save. Cheap: call it on every change.
 */
void baton_activity_set_needs_save(BatonActivity *self, gboolean needs_save) {
    set_flag(self, BATON_SWIFT_FLAG_NEEDS_SAVE, needs_save, PROP_NEEDS_SAVE);
}

/**
 * baton_activity_get_supports_continuation_streams:
 * @self: an activity
 *
 * Gets #BatonActivity:supports-continuation-streams.
 *
 * Returns: whether the activity offers continuation streams
 */
gboolean baton_activity_get_supports_continuation_streams(BatonActivity *self) {
    return get_flag(self, BATON_SWIFT_FLAG_SUPPORTS_STREAMS);
}

/**
 * baton_activity_set_supports_continuation_streams:
 * @self: an activity
 * @supports: whether it offers them
 *
 * Sets #BatonActivity:supports-continuation-streams.
 */
void baton_activity_set_supports_continuation_streams(BatonActivity *self, gboolean supports) {
    set_flag(self, BATON_SWIFT_FLAG_SUPPORTS_STREAMS, supports, PROP_SUPPORTS_CONTINUATION_STREAMS);
}

/**
 * baton_activity_get_is_current:
 * @self: an activity
 *
 * Gets #BatonActivity:is-current.
 *
 * Returns: whether this is the app's current activity
 */
gboolean baton_activity_get_is_current(BatonActivity *self) {
    return get_flag(self, BATON_SWIFT_FLAG_CURRENT);
}

/**
 * baton_activity_get_is_valid:
 * @self: an activity
 *
 * Gets #BatonActivity:is-valid.
 *
 * Returns: %FALSE once the activity was invalidated
 */
gboolean baton_activity_get_is_valid(BatonActivity *self) {
    return get_flag(self, BATON_SWIFT_FLAG_VALID);
}

/**
 * baton_activity_get_user_info:
 * @self: an activity
 *
 * Gets #BatonActivity:user-info.
 *
 * Returns: (transfer none): #BatonActivity:user-info, an `a{sv}`
 */
GVariant *baton_activity_get_user_info(BatonActivity *self) {
    g_return_val_if_fail(BATON_IS_ACTIVITY(self), NULL);
    GVariant *fresh = g_variant_ref_sink(baton_swift_activity_dup_user_info(baton_activity_get_handle(self)));
    if (self->user_info && g_variant_equal(self->user_info, fresh)) {
        g_variant_unref(fresh);
    } else {
        g_clear_pointer(&self->user_info, g_variant_unref);
        self->user_info = fresh;
    }
    return self->user_info;
}

/**
 * baton_activity_set_user_info:
 * @self: an activity
 * @user_info: (nullable): an `a{sv}`, or %NULL for empty
 *
 * Replaces #BatonActivity:user-info.
 */
void baton_activity_set_user_info(BatonActivity *self, GVariant *user_info) {
    g_return_if_fail(BATON_IS_ACTIVITY(self));
    g_return_if_fail(user_info == NULL || g_variant_is_of_type(user_info, G_VARIANT_TYPE_VARDICT));
    baton_swift_activity_set_user_info(baton_activity_get_handle(self), user_info, FALSE);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_USER_INFO]);
}

/**
 * baton_activity_add_user_info_entries:
 * @self: an activity
 * @entries: an `a{sv}`
 *
 * Merges @entries into #BatonActivity:user-info; where a key exists, the new value wins.
 */
void baton_activity_add_user_info_entries(BatonActivity *self, GVariant *entries) {
    g_return_if_fail(BATON_IS_ACTIVITY(self));
    g_return_if_fail(entries != NULL && g_variant_is_of_type(entries, G_VARIANT_TYPE_VARDICT));
    baton_swift_activity_set_user_info(baton_activity_get_handle(self), entries, TRUE);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_USER_INFO]);
}

/**
 * baton_activity_get_user_info_value:
 * @self: an activity
 * @key: a key of #BatonActivity:user-info
 *
 * Looks up one entry of #BatonActivity:user-info.
 *
 * Returns: (transfer full) (nullable): the value under @key, or %NULL if there is none
 */
GVariant *baton_activity_get_user_info_value(BatonActivity *self, const char *key) {
    g_return_val_if_fail(BATON_IS_ACTIVITY(self), NULL);
    g_return_val_if_fail(key != NULL, NULL);
    GVariantDict dict;
    g_variant_dict_init(&dict, baton_activity_get_user_info(self));
    GVariant *value = g_variant_dict_lookup_value(&dict, key, NULL);
    g_variant_dict_clear(&dict);
    return value;
}

/**
 * baton_activity_set_user_info_value:
 * @self: an activity
 * @key: a key
 * @value: (nullable): the value, or %NULL to remove @key
 *
 * Sets one entry of #BatonActivity:user-info.
 */
void baton_activity_set_user_info_value(BatonActivity *self, const char *key, GVariant *value) {
    g_return_if_fail(BATON_IS_ACTIVITY(self));
    g_return_if_fail(key != NULL);
    GVariantDict dict;
    g_variant_dict_init(&dict, baton_activity_get_user_info(self));
    if (value) g_variant_dict_insert_value(&dict, key, value);
    else g_variant_dict_remove(&dict, key);
    g_autoptr(GVariant) user_info = g_variant_ref_sink(g_variant_dict_end(&dict));
    baton_activity_set_user_info(self, user_info);
}

/**
 * baton_activity_become_current:
 * @self: an activity
 *
 * Makes this the current activity at once; the next election may replace it.
 */
void baton_activity_become_current(BatonActivity *self) {
    g_return_if_fail(BATON_IS_ACTIVITY(self));
    baton_swift_activity_perform(baton_activity_get_handle(self), BATON_SWIFT_ACTION_BECOME_CURRENT);
}

/**
 * baton_activity_resign_current:
 * @self: an activity
 *
 * Stops this being the current activity, if it is.
 */
void baton_activity_resign_current(BatonActivity *self) {
    g_return_if_fail(BATON_IS_ACTIVITY(self));
    baton_swift_activity_perform(baton_activity_get_handle(self), BATON_SWIFT_ACTION_RESIGN_CURRENT);
}

/**
 * baton_activity_invalidate:
 * @self: an activity
 *
 * Ends the activity for good: it resigns if current and is never saved or elected again.
 */
void baton_activity_invalidate(BatonActivity *self) {
    g_return_if_fail(BATON_IS_ACTIVITY(self));
    baton_swift_activity_perform(baton_activity_get_handle(self), BATON_SWIFT_ACTION_INVALIDATE);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_IS_VALID]);
}

void baton_activity_emit_update_state(BatonActivity *self) {
    g_signal_emit(self, signals[SIGNAL_UPDATE_STATE], 0);
}

void baton_activity_emit_was_continued(BatonActivity *self, const char *device_name) {
    g_signal_emit(self, signals[SIGNAL_WAS_CONTINUED], 0, device_name);
}

void baton_activity_emit_restore_state(BatonActivity *self, BatonActivity *continued) {
    g_signal_emit(self, signals[SIGNAL_RESTORE_STATE], 0, continued);
}

void baton_activity_notify_user_info(BatonActivity *self) {
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_USER_INFO]);
}

/* A GIOStream over a stream socket the caller gives up. */
static GIOStream *stream_for_socket(int fd, GError **error) {
    GSocket *socket = g_socket_new_from_fd(fd, error);
    if (!socket) {
        close(fd);
        return NULL;
    }
    GSocketConnection *connection = g_socket_connection_factory_create_connection(socket);
    g_object_unref(socket);
    return G_IO_STREAM(connection);
}

void baton_activity_emit_stream_received(BatonActivity *self, int fd) {
    g_autoptr(GError) error = NULL;
    g_autoptr(GIOStream) stream = stream_for_socket(fd, &error);
    if (!stream) {
        g_warning("BatonActivity: a continuation stream could not be opened: %s", error->message);
        return;
    }
    if (g_signal_has_handler_pending(self, signals[SIGNAL_STREAM_RECEIVED], 0, FALSE))
        g_signal_emit(self, signals[SIGNAL_STREAM_RECEIVED], 0, stream);
    else
        g_io_stream_close(stream, NULL, NULL);
}

/**
 * baton_activity_get_continuation_streams:
 * @self: the activity given to #BatonApplication::continue
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the result
 * @user_data: data for @callback
 *
 * Opens a duplex stream to the app this activity came from, for data too large for
 * #BatonActivity:user-info (Apple's continuation streams). Call it from
 * #BatonApplication::continue, before baton_application_restore(); the origin must have set
 * #BatonActivity:supports-continuation-streams. The usual shape: write a request, shut down
 * the write half (g_socket_shutdown() on the connection's socket), read the answer to the end.
 */
void baton_activity_get_continuation_streams(BatonActivity *self, GCancellable *cancellable,
                                             GAsyncReadyCallback callback, gpointer user_data) {
    g_return_if_fail(BATON_IS_ACTIVITY(self));
    GTask *task = g_task_new(self, cancellable, callback, user_data);
    g_task_set_source_tag(task, baton_activity_get_continuation_streams);
    baton_swift_activity_open_continuation_streams(baton_activity_get_handle(self), task);
}

/**
 * baton_activity_get_continuation_streams_finish:
 * @self: the activity
 * @result: the result @callback was given
 * @error: where a failure is reported: %BATON_ERROR_HANDOFF_FAILED (not an activity being
 *   continued here, or its origin does not support streams), %BATON_ERROR_CONNECTION_UNAVAILABLE,
 *   %BATON_ERROR_REMOTE_APPLICATION_TIMED_OUT
 *
 * Finishes baton_activity_get_continuation_streams().
 *
 * Returns: (transfer full): the stream (a #GSocketConnection), or %NULL on error
 */
GIOStream *baton_activity_get_continuation_streams_finish(BatonActivity *self, GAsyncResult *result,
                                                          GError **error) {
    g_return_val_if_fail(g_task_is_valid(result, self), NULL);
    return g_task_propagate_pointer(G_TASK(result), error);
}

void baton_activity_return_continuation_streams(GTask *task, int fd, gint code, const char *message) {
    if (fd >= 0) {
        GError *error = NULL;
        GIOStream *stream = stream_for_socket(fd, &error);
        if (stream) g_task_return_pointer(task, stream, g_object_unref);
        else g_task_return_error(task, error);
    } else {
        g_task_return_new_error(task, BATON_ERROR, code, "%s", message ? message : "");
    }
    g_object_unref(task);
}
