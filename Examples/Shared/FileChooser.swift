import BatonGtk
import CGtk
import Foundation

/// The desktop's file chooser (`GtkFileChooserNative`, the portal's inside a sandbox) for
/// opening files or choosing where to save one, over a window.
@MainActor
public final class FileChooser {
    /// What the person chooses: files to open, or where to save.
    public enum Purpose: Sendable {
        case open(multiple: Bool)
        case save(suggestedName: String)
    }

    private var chooser: OpaquePointer?

    public init() {}

    /// Whether the chooser is open now.
    public var isShown: Bool { chooser != nil }

    /// Shows the chooser over `window` (or brings it forward, when it is open already);
    /// `completion` receives the chosen files, none when the person cancelled.
    public func show(over window: UnsafeMutablePointer<GtkWindow>?, title: String, accept: String, purpose: Purpose,
                     completion: @escaping @MainActor ([URL]) -> Void) {
        if let chooser {
            gtk_native_dialog_show(UnsafeMutablePointer(chooser))
            return
        }
        let action: GtkFileChooserAction
        switch purpose {
        case .open: action = GTK_FILE_CHOOSER_ACTION_OPEN
        case .save: action = GTK_FILE_CHOOSER_ACTION_SAVE
        }
        guard let made = gtk_file_chooser_native_new(title, window, action, accept, "_Cancel") else { return }
        switch purpose {
        case .open(let multiple):
            gtk_file_chooser_set_select_multiple(made, multiple ? 1 : 0)
        case .save(let suggestedName):
            gtk_file_chooser_set_current_name(made, suggestedName)
        }
        chooser = made
        GObjectSignals.connectInt(UnsafeMutableRawPointer(made), "response") { [weak self] response in
            let urls = response == GTK_RESPONSE_ACCEPT.rawValue ? Self.chosenFiles(of: made) : []
            g_object_unref(UnsafeMutableRawPointer(made))
            self?.chooser = nil
            completion(urls)
        }
        gtk_native_dialog_show(UnsafeMutablePointer(made))
    }

    private static func chosenFiles(of chooser: OpaquePointer) -> [URL] {
        guard let files = gtk_file_chooser_get_files(chooser) else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(files)) }
        var urls: [URL] = []
        for index in 0..<g_list_model_get_n_items(files) {
            guard let file = g_list_model_get_item(files, index) else { continue }
            defer { g_object_unref(file) }
            guard let path = g_file_get_path(OpaquePointer(file)) else { continue }
            urls.append(URL(fileURLWithPath: String(cString: path)))
            g_free(path)
        }
        return urls
    }
}
