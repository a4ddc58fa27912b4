import Baton
import BatonTesting
import Foundation
import XCTest

/// A text document that keeps its cursor line in its activity, and records what the
/// framework asks of it. It reads nothing from disk: ``failRead`` stands for a file that
/// cannot be read.
@MainActor
private final class TextDocument: Document {
    var cursorLine = 0
    var failRead: (any Error)?
    private(set) var reads: [String] = []
    private(set) var restoredLines: [Int] = []
    private(set) var windowsMade = 0
    /// What shares the document's activity once its window is made (its text view, say).
    let view = RecordingResponder()

    override func read(from url: URL, ofType typeName: String) throws {
        if let failRead { throw failRead }
        reads.append(typeName)
    }

    override func makeWindowControllers() {
        windowsMade += 1
        view.userActivity = userActivity
    }

    override func updateUserActivityState(_ userActivity: UserActivity) {
        super.updateUserActivityState(userActivity)
        userActivity.addUserInfoEntries(from: ["line": .int(cursorLine)])
    }

    override func restoreUserActivityState(_ userActivity: UserActivity) {
        restoredLines.append(userActivity.userInfo["line"]?.intValue ?? -1)
    }
}

/// A delegate that implements nothing but `willContinue`: `continue…` and `didFail…` are the
/// protocol's defaults, as in an app that leaves documents to the framework.
@MainActor
private final class DocumentAppDelegate: ApplicationDelegate {
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        true
    }
}

/// An application that records what it would show the person.
@MainActor
private final class PresentingApplication: Application {
    private(set) var presented: [String] = []
    private(set) var presentedErrors: [any Error] = []

    override func presentError(_ error: any Error) {
        presented.append(String(describing: error))
        presentedErrors.append(error)
    }
}

@MainActor
final class DocumentControllerTests: XCTestCase {
    private let editing = "org.example.texteditor.editing"
    private let markdown = URL(fileURLWithPath: "/home/ada/Documents/report.md")
    private var center: ActivityCenter!
    private var scheduler: ManualScheduler!
    private var controller: DocumentController!
    private var made: [TextDocument] = []
    /// What reading the next documents throws.
    private var readFailure: (any Error)?

    override func setUp() async throws {
        (center, scheduler) = ResponderChainBuilder.center()
        made = []
        controller = DocumentController(documentTypes: [
            DocumentType(name: "Markdown", fileExtensions: ["md", "markdown"], mimeTypes: ["text/markdown"],
                         activityType: editing),
            DocumentType(name: "Plain text", fileExtensions: ["txt"], mimeTypes: ["text/plain"]),
        ], center: center) { [unowned self] url, _ in
            let document = TextDocument(fileURL: url)
            document.failRead = readFailure
            made.append(document)
            return document
        }
    }

    private func open(_ url: URL) throws -> TextDocument {
        try XCTUnwrap(try controller.openDocument(withContentsOf: url) as? TextDocument)
    }

    func testADocumentOfADeclaredTypeGetsItsActivityWithItsFileURL() async throws {
        let document = try open(markdown)
        XCTAssertEqual(document.reads, ["Markdown"])
        XCTAssertEqual(document.windowsMade, 1)
        let activity = try XCTUnwrap(document.userActivity)
        XCTAssertEqual(activity.activityType, editing)
        XCTAssertEqual(activity.title, "report.md")
        document.cursorLine = 12
        XCTAssertGreaterThan(scheduler.runUntilIdle(), 0)
        XCTAssertEqual(activity.userInfo[UserActivity.documentURLKey], .url(markdown))
        XCTAssertEqual(activity.userInfo["line"], .int(12))
        XCTAssertTrue(controller.documents.contains { $0 === document })
        XCTAssertTrue(try controller.openDocument(withContentsOf: markdown) === document, "open already: the same document")
        XCTAssertEqual(made.count, 1)
    }

    func testAMovedFileIsSavedAgainAndATypeWithoutActivityLosesIt() async throws {
        let document = try open(markdown)
        let activity = try XCTUnwrap(document.userActivity)
        _ = scheduler.runUntilIdle()
        let moved = URL(fileURLWithPath: "/home/ada/Documents/final.md")
        document.fileURL = moved
        XCTAssertTrue(activity.needsSave, "a new file URL marks the activity for an update pass")
        _ = scheduler.runUntilIdle()
        XCTAssertEqual(activity.userInfo[UserActivity.documentURLKey], .url(moved))
        XCTAssertEqual(activity.title, "final.md")

        document.fileURL = URL(fileURLWithPath: "/home/ada/Documents/final.txt")
        XCTAssertNil(document.userActivity, "plain text declares no activity type")
        XCTAssertFalse(activity.isValid)
    }

    func testAnUntitledDocumentGetsItsActivityWhenSaved() async throws {
        let document = try XCTUnwrap(try controller.openUntitledDocument() as? TextDocument)
        XCTAssertEqual(document.windowsMade, 1)
        XCTAssertTrue(document.reads.isEmpty, "nothing to read")
        XCTAssertNil(document.userActivity, "no file, no activity")
        document.fileURL = markdown
        XCTAssertEqual(document.userActivity?.activityType, editing)
        _ = scheduler.runUntilIdle()
        XCTAssertEqual(document.userActivity?.userInfo[UserActivity.documentURLKey], .url(markdown))
        XCTAssertThrowsError(try DocumentController(center: center).openUntitledDocument()) {
            XCTAssertEqual($0 as? DocumentError, .noDocumentTypes)
        }
    }

    func testClosingInvalidatesTheActivityAndLeavesTheController() async throws {
        let document = try open(markdown)
        let activity = try XCTUnwrap(document.userActivity)
        document.close()
        XCTAssertFalse(activity.isValid)
        XCTAssertFalse(controller.documents.contains { $0 === document })
        XCTAssertNil(document.documentController)
    }

    func testAnActivityTheAppGaveItsDocumentIsLeftAlone() async throws {
        let document = TextDocument(fileURL: nil)
        let own = UserActivity(activityType: "org.example.texteditor.own", center: center)
        document.userActivity = own
        controller.addDocument(document)
        document.fileURL = markdown
        XCTAssertTrue(document.userActivity === own)
        XCTAssertTrue(own.needsSave)
        _ = scheduler.runUntilIdle()
        XCTAssertFalse(own.needsSave)
        document.fileURL = nil
        XCTAssertTrue(document.userActivity === own)
        XCTAssertTrue(own.needsSave, "a document's file URL going away is saved too")
    }

    func testOnlyFilesOfDeclaredTypesOpen() async {
        XCTAssertThrowsError(try controller.openDocument(withContentsOf: URL(fileURLWithPath: "/tmp/picture.png"))) {
            XCTAssertEqual($0 as? DocumentError, .undeclaredType(URL(fileURLWithPath: "/tmp/picture.png")))
        }
        let web = URL(string: "https://example.org/report.md")!
        XCTAssertThrowsError(try controller.openDocument(withContentsOf: web)) {
            XCTAssertEqual($0 as? DocumentError, .notAFile(web))
        }
        XCTAssertTrue(made.isEmpty)
        XCTAssertTrue(controller.documents.isEmpty)
    }

    // MARK: Reopening continued documents

    private func incoming(line: Int, url: URL? = nil, type: String? = nil) -> UserActivity {
        let activity = UserActivity(activityType: type ?? editing, center: center)
        activity.userInfo = [UserActivity.documentURLKey: .url(url ?? markdown), "line": .int(line)]
        return activity
    }

    func testADeclinedActivityReopensItsDocumentAndRestoresItAndItsViews() async throws {
        let application = Application(center: center)
        let delegate = RecordingApplicationDelegate()
        delegate.handles = false
        delegate.restoreLater = true   // declines without restoring anything
        application.delegate = delegate
        let continuation = application.beginContinuation(activityType: editing)
        XCTAssertTrue(continuation.complete(with: incoming(line: 42), whenRestored: nil), "\(String(describing: continuation.error))")

        let document = try XCTUnwrap(made.first)
        XCTAssertEqual(made.count, 1)
        XCTAssertEqual(document.windowsMade, 1)
        XCTAssertEqual(document.restoredLines, [42])
        XCTAssertEqual(document.view.restored.map { $0["line"] }, [.int(42)], "the view sharing its activity restored too")
        XCTAssertEqual(delegate.calls, [.willContinue(editing), .didContinue(editing)], "no failure")
    }

    func testADelegateWithoutContinueHasTheDocumentReopened() async throws {
        let application = Application(center: center)
        let delegate = DocumentAppDelegate()
        application.delegate = delegate
        application.beginContinuation(activityType: editing).complete(with: incoming(line: 7))
        XCTAssertEqual(made.first?.restoredLines, [7])
    }

    func testADocumentThatCannotBeReopenedFailsTheContinuationSayingWhy() async throws {
        let application = Application(center: center)
        let delegate = RecordingApplicationDelegate()
        delegate.handles = false
        delegate.restoreLater = true
        application.delegate = delegate
        func failure(of activity: UserActivity) -> String {
            let continuation = application.beginContinuation(activityType: editing)
            XCTAssertFalse(continuation.complete(with: activity, whenRestored: nil))
            return continuation.error.map { String(describing: $0) } ?? "no error"
        }
        readFailure = CocoaError(.fileReadNoSuchFile)
        let unreadable = failure(of: incoming(line: 1))
        XCTAssertTrue(unreadable.contains("returned false, and its document could not be reopened: "), unreadable)
        XCTAssertTrue(controller.documents.isEmpty, "nothing half open")

        readFailure = nil
        let text = URL(fileURLWithPath: "/home/ada/Documents/list.txt")
        let undeclared = failure(of: incoming(line: 1, url: text))
        XCTAssertTrue(undeclared.contains("list.txt is of no document type"),
                      "plain text is declared, but not for this activity type: \(undeclared)")
        let named = failure(of: UserActivity(activityType: editing, center: center))
        XCTAssertTrue(named.hasSuffix("returned false"), "no document named: declined, as before: \(named)")
        XCTAssertTrue(controller.documents.isEmpty)
        XCTAssertFalse(delegate.calls.contains { if case .didFail = $0 { true } else { false } },
                       "continue… ran, so didFail… does not: one outcome each")
    }

    /// The delegate left the document to the framework: when it cannot be reopened, the
    /// person is told which, though didFail… is not called. A declined activity naming no
    /// document shows nothing.
    func testADocumentThatCannotBeReopenedIsShownToThePerson() async throws {
        let application = PresentingApplication(center: center)
        let delegate = RecordingApplicationDelegate()
        delegate.handles = false
        delegate.restoreLater = true
        application.delegate = delegate
        readFailure = CocoaError(.fileReadNoSuchFile)
        application.beginContinuation(activityType: editing).complete(with: incoming(line: 1))
        XCTAssertEqual(application.presentedErrors.count, 1, "\(application.presented)")
        let shown = try XCTUnwrap(application.presentedErrors.first as? DocumentReopenFailure)
        XCTAssertEqual(shown.messageForPeople, "“report.md” could not be opened.")
        XCTAssertTrue(shown.reason.contains("its document could not be reopened"), shown.reason)
        application.beginContinuation(activityType: editing).complete(with: UserActivity(activityType: editing, center: center))
        XCTAssertEqual(application.presentedErrors.count, 1, "no document, nothing shown: the app declined it")
    }

    func testWithoutItsOwnDidFailTheAppShowsTheErrorButNotACancellation() async {
        let application = PresentingApplication(center: center)
        let delegate = DocumentAppDelegate()
        application.delegate = delegate
        application.beginContinuation(activityType: editing).fail(with: UserActivityError.connectionUnavailable("the link dropped"))
        XCTAssertEqual(application.presented.count, 1)
        XCTAssertTrue(application.presented.first?.contains("the link dropped") == true, "\(application.presented)")
        application.beginContinuation(activityType: editing).fail(with: UserActivityError.cancelled)
        XCTAssertEqual(application.presented.count, 1, "a cancellation is not shown")

        let recording = RecordingApplicationDelegate()
        application.delegate = recording
        application.beginContinuation(activityType: editing).fail(with: UserActivityError.connectionUnavailable("again"))
        XCTAssertEqual(application.presented.count, 1, "a delegate with its own didFail… shows what it wants")
    }
}
