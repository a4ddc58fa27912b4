import Foundation
import ServiceFixtures
import XCTest

/// libbaton's GObject API as Python sees it (`api-contract.py`, Python's unittest, under the
/// test's display with no batond): user-info as `a{sv}`, lazy update passes that empty
/// user-info first, ownership, errors in `BATON_ERROR`; and as Vala sees it, through its
/// `.vapi` (`vala-check.vala`).
final class GObjectAPITests: XCTestCase {
    func testThePythonContractPasses() throws {
        try NotesExampleProcess.requirements(.python)
        let result = try runTool(NotesExampleProcess.python.path,
                                 [SourceTree.path("Tests/GObjectExampleTests/api-contract.py").path],
                                 environment: ProcessInfo.processInfo.environment.merging([
                                     "GI_TYPELIB_PATH": NotesExampleProcess.typelibFolder.path,
                                     "LD_LIBRARY_PATH": NotesExampleProcess.productsFolder.path,
                                 ]) { $1 }, timeout: 120)
        let text = result.output + result.errorOutput
        XCTAssertEqual(result.status, 0, text)
        XCTAssertTrue(text.contains("OK"), text)
        XCTAssertFalse(text.contains("CRITICAL") || text.contains("Warning:"), "GLib warned: \(text)")
    }

    /// A Vala program on `baton-1.vapi` (vapigen's, by `scripts/gir.sh`) compiles with
    /// `valac --pkg baton-1` (its `.deps` bring GTK) and runs.
    func testAValaProgramOnTheVapiCompilesAndRuns() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/valac"), "valac is missing")
        try NotesExampleProcess.requirements()
        let gir = NotesExampleProcess.typelibFolder
        let program = FileManager.default.temporaryDirectory.appendingPathComponent("baton-vala-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: program) }
        let compile = try runTool("/usr/bin/env", [
            "PKG_CONFIG_PATH=\(gir.path)", "/usr/bin/valac", "--vapidir", gir.path, "--pkg", "baton-1",
            SourceTree.path("Tests/GObjectExampleTests/vala-check.vala").path, "-o", program.path,
            "-X", "-Wl,-rpath,\(NotesExampleProcess.productsFolder.path)",
        ], in: program.deletingLastPathComponent(), timeout: 300)
        XCTAssertEqual(compile.status, 0, compile.output + compile.errorOutput)
        let result = try runTool(program.path, [], in: program.deletingLastPathComponent())
        XCTAssertEqual(result.status, 0, result.output + result.errorOutput)
        XCTAssertEqual(result.output, "vala: ok\n")
    }
}
