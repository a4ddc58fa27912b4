/* What the C files of libbaton share. Not installed. */
#pragma once

#include <glib.h>

/* Keeps `fresh` (taken) in `slot` unless it equals what is there, and returns what `slot`
 * holds: a string a (transfer none) getter returned stays valid until the value changes. */
static inline const char *baton_keep_string(char **slot, char *fresh) {
    if (g_strcmp0(*slot, fresh) == 0) {
        g_free(fresh);
    } else {
        g_free(*slot);
        *slot = fresh;
    }
    return *slot;
}
