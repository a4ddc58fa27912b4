// The wrappers are all static inline in include/baton_gtk.h; this file gives the target a body.
#include "baton_gtk.h"
