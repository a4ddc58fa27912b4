/// BatonGtk's GLib layer (signals, main-loop scheduling, the main-queue bridge, XDG folders,
/// D-Bus) is part of its API: apps that import BatonGtk get it too. So are GTK's and GIO's C
/// APIs (the `CGtk` and `CGLib` modules): `import BatonGtk` is enough to call `gtk_*` and
/// `g_*` functions.
@_exported import BatonGLib
@_exported import CGLib
@_exported import CGtk
