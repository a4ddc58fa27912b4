import Foundation
import ServiceFixtures
import XCTest

/// libbaton's GObject API as Python sees it (`api-contract.py`, Python's unittest, under the
/// test's display with no batond): user-info as `a{sv}`, lazy update passes that empty
/// user-info first, ownership, errors in `BATON_ERROR`.
final class GObjectAPITests: XCTestCase {
    func testThePythonContractPasses() throws {
        try NotesExampleProcess.requirements(.python)
        let process = Process()
        process.executableURL = NotesExampleProcess.python
        process.arguments = [SourceTree.path("Tests/GObjectExampleTests/api-contract.py").path]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "GI_TYPELIB_PATH": NotesExampleProcess.typelibFolder.path,
            "LD_LIBRARY_PATH": NotesExampleProcess.productsFolder.path,
        ]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("OK"), text)
        XCTAssertFalse(text.contains("CRITICAL") || text.contains("Warning:"), "GLib warned: \(text)")
    }
}
