/// BatonGtk's GLib layer (signals, main-loop scheduling, the main-queue bridge, XDG folders,
/// D-Bus) is part of its API: apps that import BatonGtk get it too.
@_exported import BatonGLib
