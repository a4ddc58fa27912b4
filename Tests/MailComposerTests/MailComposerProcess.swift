import Foundation
import ServiceFixtures
import XCTest

/// A MailComposer process under test, with its own data folder (`--data-dir`).
final class MailComposerProcess: ExampleAppProcess {
    init(root: URL, name: String = UUID().uuidString) {
        super.init(program: "MailComposer", root: root, name: name, dataDirectoryOption: "--data-dir")
    }

    static var executable: URL { executable("MailComposer") }

    /// Skips unless the desktop (by default the X display, with xdotool) and the built app are there.
    static func requirements(_ desktop: TestDesktopKind = .x11) throws {
        if let missing = missingRequirement("MailComposer", desktop: desktop) { throw XCTSkip(missing) }
    }
}
