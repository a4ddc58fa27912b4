import Foundation
import ServiceFixtures
import XCTest

/// The Python notes app (`Examples/Python/notes.py`) under test: run by Debian's
/// `/usr/bin/python3` with the built libbaton (`LD_LIBRARY_PATH`) and its typelib
/// (`GI_TYPELIB_PATH`, made by `scripts/gir.sh`), its trace in its own file.
final class PythonNotesProcess: ExampleAppProcess {
    static let appID = "org.example.PyNotes"
    static let activityType = "org.example.notes.note"
    static let interpreter = URL(fileURLWithPath: "/usr/bin/python3")
    static let script = SourceTree.path("Examples/Python/notes.py")
    static let shippedEntry = SourceTree.path("Examples/Python/Resources/\(appID).desktop")

    /// The built products: libbaton-1.so, and gir/ with its typelib.
    static var productsFolder: URL { ServiceSession.productsFolder }
    static var typelibFolder: URL { productsFolder.appendingPathComponent("gir") }

    /// The interpreter process, when this test started it.
    private(set) var interpreterProcess: Process?

    init(root: URL) {
        super.init(program: "notes.py", root: root)
    }

    /// What a process needs to find libbaton and its typelib.
    var libraryEnvironment: [String: String] {
        ["GI_TYPELIB_PATH": Self.typelibFolder.path, "LD_LIBRARY_PATH": Self.productsFolder.path,
         "BATON_TRACE": traceURL.path]
    }

    /// Skips unless python3-gi, the built library and its typelib (made here once) are there.
    static func requirements() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: interpreter.path), "/usr/bin/python3 is missing")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py"),
                          "python3-gi is missing")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: productsFolder.appendingPathComponent("libbaton-1.so").path),
                          "libbaton-1.so is not built: run `swift build --build-tests` first")
        try makeTypelibOnce()
    }

    private nonisolated(unsafe) static var typelibError: String??

    /// Runs `scripts/gir.sh` on the built library once per test run.
    private static func makeTypelibOnce() throws {
        if typelibError == nil {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [SourceTree.path("scripts/gir.sh").path, productsFolder.path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            typelibError = .some(process.terminationStatus == 0 ? nil : text)
        }
        if case .some(.some(let error)) = typelibError { XCTFail("scripts/gir.sh failed: \(error)") }
    }

    /// Starts the app with `environment` (a session's) on this process's desktop.
    func launchNotes(environment: [String: String]) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = Self.interpreter
        process.arguments = [Self.script.path]
        process.environment = environment.merging(libraryEnvironment) { $1 }.merging(desktop.environment) { $1 }
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = log
        try process.run()
        try log.close()
        interpreterProcess = process
        pid = process.processIdentifier
    }

    /// Installs the app in `session` (its desktop entry, starting this instance through the
    /// interpreter), so that the session's batond verifies and starts it.
    func installNotes(in session: ServiceSession) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let variables = libraryEnvironment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let exec = (["Exec=env"] + variables + [Self.interpreter.path, Self.script.path]).joined(separator: " ")
        let entry = try String(contentsOf: Self.shippedEntry, encoding: .utf8)
            .replacingOccurrences(of: "Exec=python3 notes.py", with: exec)
        try entry.write(to: session.dataHome.appendingPathComponent("applications/\(Self.appID).desktop"),
                        atomically: true, encoding: .utf8)
    }

    /// Ends the interpreter this test started.
    func stop() {
        guard let interpreterProcess, interpreterProcess.isRunning else { return }
        interpreterProcess.terminate()
        interpreterProcess.waitUntilExit()
    }

    /// The text of the note in the last update pass.
    var lastSavedText: String? {
        events().last { $0.event == "updated" }?.userInfo?["text"] as? String
    }
}
