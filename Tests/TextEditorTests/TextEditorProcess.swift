import Foundation
import ServiceFixtures
import XCTest

/// A TextEditor process under test.
final class TextEditorProcess: ExampleAppProcess {
    init(root: URL, name: String = UUID().uuidString) {
        super.init(program: "TextEditor", root: root, name: name)
    }

    /// Skips unless the desktop (by default the X display, with xdotool) and the built app are there.
    static func requirements(_ desktop: TestDesktopKind = .x11) throws {
        if let missing = missingRequirement("TextEditor", desktop: desktop) { throw XCTSkip(missing) }
    }

    static let activityType = "org.example.texteditor.editing"

    /// The position the app last put in its activity (an `updated` event): cursor line,
    /// cursor column, middle line.
    func lastPosition(where matches: ([String: Any]) -> Bool = { _ in true }) -> (cursor: Int, column: Int, middle: Int)? {
        guard let info = events().last(where: { $0.event == "updated" && matches($0) })?.userInfo,
              let cursor = info["cursorLine"] as? Int, let column = info["cursorColumn"] as? Int,
              let middle = info["middleLine"] as? Int else { return nil }
        return (cursor, column, middle)
    }

    /// A Markdown file of `lines` numbered lines, in `folder`.
    static func writeReport(in folder: URL, name: String = "report.md", lines: Int = 400) throws -> URL {
        let file = folder.appendingPathComponent(name)
        let text = (["# Report", ""] + (3...lines).map { "Line \($0) of the report." }).joined(separator: "\n") + "\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }
}
