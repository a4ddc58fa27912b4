import BatonGtk
import CGtk

/// The keyboard shortcuts window (GTK's `GtkShortcutsWindow`), shown with Ctrl+? and from
/// the primary menu. It lists the shortcuts ``MailApplication`` sets.
@MainActor
enum ShortcutsWindow {
    /// A new shortcuts window, for one app window's help overlay.
    static func make() -> OpaquePointer? {
        guard let builder = gtk_builder_new_from_string(definition, -1) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(builder)) }
        return gtk_builder_get_object(builder, "help_overlay").map(OpaquePointer.init)
    }

    private static let groups: [(title: String, shortcuts: [(title: String, accelerator: String)])] = [
        ("Messages", [("New message", "<Control>n"), ("Reply", "<Control>r"), ("Attach files", "<Control><Shift>a"), ("Send", "<Control>Return")]),
        ("General", [("Main menu", "F10"), ("Keyboard shortcuts", "<Control>question"),
                     ("Close window", "<Control>w"), ("Quit", "<Control>q")]),
    ]

    private static var definition: String {
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
