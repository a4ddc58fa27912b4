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

    /// A Vala program on `baton-1.vapi` (vapigen's, by `scripts/gir.sh`) compiles with
    /// `valac --pkg baton-1` (its `.deps` bring GTK) and runs.
    func testAValaProgramOnTheVapiCompilesAndRuns() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/valac"), "valac is missing")
        try NotesExampleProcess.requirements()
        let gir = NotesExampleProcess.typelibFolder
        let program = FileManager.default.temporaryDirectory.appendingPathComponent("baton-vala-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: program) }
        let compile = try run(URL(fileURLWithPath: "/usr/bin/env"), [
            "PKG_CONFIG_PATH=\(gir.path)", "/usr/bin/valac", "--vapidir", gir.path, "--pkg", "baton-1",
            SourceTree.path("Tests/GObjectExampleTests/vala-check.vala").path, "-o", program.path,
            "-X", "-Wl,-rpath,\(NotesExampleProcess.productsFolder.path)",
        ], in: program.deletingLastPathComponent())
        XCTAssertEqual(compile.status, 0, compile.output)
        let result = try run(program, [], in: program.deletingLastPathComponent())
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(result.output, "vala: ok\n")
    }

    /// Runs a program to its end; its status and its output (standard error included).
    private func run(_ executable: URL, _ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
