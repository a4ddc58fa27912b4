import Foundation

/// The desktop's recent list (`recently-used.xbel`) as GTK writes it, for the tests that
/// hand batond one: bookmarks with the app that used each file, and when.
enum RecentListXML {
    /// A time as the list writes it (`2026-11-28T00:01:03Z`; GTK adds microseconds, which
    /// batond does not read).
    static func stamp(_ date: Date, fractional: Bool = false) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// One bookmark: `href` (a file URL, as given), used by `app` running `exec` at `date`.
    /// `app` and `exec` are put in the attributes as given: escape them for XML.
    static func bookmark(href: String, app: String, exec: String, mime: String = "text/plain", at date: Date = Date(),
                         extra: String = "") -> String {
        bookmark(href: href, app: app, exec: exec, mime: mime, stamp: stamp(date), extra: extra)
    }

    /// One bookmark, its times all `stamp` as the list writes them.
    static func bookmark(href: String, app: String, exec: String, mime: String = "text/plain", stamp time: String,
                         extra: String = "") -> String {
        """
          <bookmark href="\(href)" added="\(time)" modified="\(time)" visited="\(time)">
            <info>
              <metadata owner="http://freedesktop.org">
                <mime:mime-type type="\(mime)"/>
                <bookmark:applications>
                  <bookmark:application name="\(app)" exec="\(exec)" modified="\(time)" count="1"/>
                </bookmark:applications>\(extra)
              </metadata>
            </info>
          </bookmark>
        """
    }

    /// The bookmark of the file at `path`.
    static func bookmark(_ path: String, app: String, exec: String, at date: Date = Date()) -> String {
        bookmark(href: URL(fileURLWithPath: path).absoluteString, app: app, exec: exec, at: date)
    }

    /// A whole list of `bookmarks`.
    static func list(_ bookmarks: [String]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <xbel version="1.0"
              xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
              xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info"
        >
        \(bookmarks.joined(separator: "\n"))
        </xbel>
        """
    }

    /// Writes `text` to `url` in place: the file is cut to nothing and written again, as an
    /// app that does not replace it whole would.
    static func writeInPlace(_ text: String, to url: URL) throws {
        let handle = try FileHandle(forUpdating: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// Replaces the file at `url` whole with `text` (a new file renamed over it), as GTK does.
    static func replace(_ text: String, at url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".recently-used.xbel.\(UUID().uuidString)")
        try Data(text.utf8).write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}
