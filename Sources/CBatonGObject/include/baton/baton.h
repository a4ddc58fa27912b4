/* libbaton: Handoff for GTK 4 apps in any language, through GObject Introspection.
 *
 * Include this header only. */
#pragma once

#define BATON_INSIDE
#include <baton/baton-activity.h>
#include <baton/baton-application.h>
#include <baton/baton-document.h>
#include <baton/baton-enums.h>
#include <baton/baton-widget.h>
#undef BATON_INSIDE
