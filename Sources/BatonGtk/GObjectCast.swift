import CGtk

extension UnsafeMutablePointer {
    /// The same GObject instance seen as another C type, such as a `GtkWidget` as a `GtkBox`.
    ///
    /// Unchecked, like a C cast: use it where the instance's type is known.
    public func cast<T>(to type: T.Type = T.self) -> UnsafeMutablePointer<T> {
        UnsafeMutableRawPointer(self).assumingMemoryBound(to: T.self)
    }
}
