import BatonBus
import BatonGLib
import Foundation
import FuzzSupport

// Covers batond's reader of the desktop's recent list (`RecentList.parse`, GLib's
// GBookmarkFile beneath): any app of the session writes that file, so it is outside input.
// `batond` is an executable target, so RecentList.swift is compiled into this harness through
// a symbolic link. Any input must read as an error or as entries that keep the reader's
// promises: in the home folder, none hidden, no unsafe characters, names short enough for a
// title, newest first, bounded.

private let home = "/home/person"

@main
enum RecentListHarness: FuzzHarness {
    static func test(_ input: [UInt8]) {
        guard let list = Fuzz.refused(as: RecentListError.self, "reading", {
            try RecentList.parse(input, home: URL(fileURLWithPath: home), fileCheck: { _ in true })
        }) else { return }
        Fuzz.require(list.entries.count <= RecentList.maximumEntries, "more entries than are looked at")
        for entry in list.entries {
            Fuzz.require(RecentList.isInsideVisibleFolder(entry.path, of: home), "an entry outside home or hidden: \(entry.path)")
            for text in [entry.path, entry.appName, entry.exec, entry.mimeType ?? ""] {
                Fuzz.require(!UnsafeCharacters.occur(in: text), "unsafe characters kept: \(text.debugDescription)")
            }
            Fuzz.require(entry.appName.utf8.count <= RecentList.maximumNameLength, "an app name too long for a title")
            Fuzz.require(entry.exec.utf8.count <= RecentList.maximumCommandLength, "a command too long")
            Fuzz.require(!entry.exec.isEmpty, "an entry with no command")
        }
        Fuzz.require(zip(list.entries, list.entries.dropFirst()).allSatisfy { $0.usedAt >= $1.usedAt }, "not newest first")
    }
}

extension RecentListHarness {
    /// Recent lists as Evince 43 and gedit 44 write them, and broken ones.
    static func seeds() -> [String: [UInt8]] {
        func bookmark(_ path: String, app: String, exec: String, mime: String, extra: String = "") -> String {
            """
              <bookmark href="file://\(path)" added="2026-11-28T00:01:17.614400Z" modified="2026-11-28T00:01:17.614403Z" visited="2026-11-28T00:01:17.614400Z">
                <info>
                  <metadata owner="http://freedesktop.org">
                    <mime:mime-type type="\(mime)"/>
                    <bookmark:applications>
                      <bookmark:application name="\(app)" exec="\(exec)" modified="2026-11-28T00:01:17.614401Z" count="1"/>
                    </bookmark:applications>\(extra)
                  </metadata>
                </info>
              </bookmark>
            """
        }
        func list(_ bookmarks: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <xbel version="1.0"
                  xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
                  xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info"
            >
            \(bookmarks)
            </xbel>
            """
        }
        let evince = bookmark("\(home)/Docs/report.pdf", app: "Document Viewer", exec: "&apos;evince %u&apos;", mime: "application/pdf")
        let gedit = bookmark("\(home)/Docs/notes.txt", app: "gedit", exec: "&apos;gedit %u&apos;", mime: "text/plain")
        let files: [String: String] = [
            "evince-and-gedit.xbel": list(evince + "\n" + gedit),
            "private.xbel": list(bookmark("\(home)/p.txt", app: "gedit", exec: "gedit %u", mime: "text/plain",
                                          extra: "\n<bookmark:private/>")),
            "hidden.xbel": list(bookmark("\(home)/.ssh/id", app: "gedit", exec: "gedit %u", mime: "text/plain")),
            "empty.xbel": list(""),
            // Found by the hostile list tests: a bidirectional override in a file's name and a
            // line separator in an app's were offered (the title then read as another file's).
            "unsafe-characters.xbel": list(bookmark("\(home)/Docs/report%E2%80%AEfdp.exe", app: "gedit", exec: "gedit %u",
                                                    mime: "text/plain")
                                           + "\n" + bookmark("\(home)/Docs/notes.txt", app: "gedit\u{2028}now", exec: "gedit %u",
                                                             mime: "text/plain")),
            // An empty file: a list cut to be written again in place, not an empty list.
            "empty-file.xbel": "",
            // Found by this harness: a host with a path that cannot be unescaped; GLib handed the
            // host back with no path, and it was never freed.
            "host-with-broken-escape.xbel": list(bookmark("emho//person/Docs/report%E\u{0}4%80.txt", app: "gedit", exec: "gedit %u",
                                                         mime: "text/plain")),
            "truncated.xbel": String(list(evince).prefix(300)),
        ]
        return files.mapValues { Array($0.utf8) }
    }
}
