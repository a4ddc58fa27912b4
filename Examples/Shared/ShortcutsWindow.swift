import CGtk

/// The keyboard shortcuts window (GTK's `GtkShortcutsWindow`), shown with Ctrl+? and from
/// the primary menu. Each app lists the shortcuts it sets.
@MainActor
public enum ShortcutsWindow {
    /// A group of shortcuts: its title, and each shortcut's title and accelerator
    /// (`<Control>n`).
    public struct Group: Sendable {
        public var title: String
        public var shortcuts: [(title: String, accelerator: String)]

        public init(_ title: String, _ shortcuts: [(title: String, accelerator: String)]) {
            self.title = title
            self.shortcuts = shortcuts
        }
    }

    /// A new shortcuts window listing `groups`, for one app window's help overlay.
    public static func make(_ groups: [Group]) -> OpaquePointer? {
        guard let builder = gtk_builder_new_from_string(definition(groups), -1) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(builder)) }
        return gtk_builder_get_object(builder, "help_overlay").map(OpaquePointer.init)
    }

    private static func definition(_ groups: [Group]) -> String {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        let groupsXML = groups.map { group in
            let shortcuts = group.shortcuts.map { shortcut in
                """
                <child><object class="GtkShortcutsShortcut">
                  <property name="title">\(escaped(shortcut.title))</property>
                  <property name="accelerator">\(escaped(shortcut.accelerator))</property>
                </object></child>
                """
            }.joined()
            return """
                <child><object class="GtkShortcutsGroup">
                  <property name="title">\(escaped(group.title))</property>\(shortcuts)
                </object></child>
                """
        }.joined()
        return """
            <interface>
              <object class="GtkShortcutsWindow" id="help_overlay">
                <property name="modal">1</property>
                <child><object class="GtkShortcutsSection">
                  <property name="section-name">shortcuts</property>
                  <property name="max-height">12</property>\(groupsXML)
                </object></child>
              </object>
            </interface>
            """
    }
}
