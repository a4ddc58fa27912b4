import Foundation
import ServiceFixtures
import XCTest

/// The languages of libbaton's notes examples, each an app of its own id for the same
/// activity type (`org.example.notes.note`).
enum NotesLanguage: String, CaseIterable {
    case python, c, javascript

    /// The app id, which names its desktop entry.
    var appID: String {
        switch self {
        case .python: "org.example.PyNotes"
        case .c: "org.example.CNotes"
        case .javascript: "org.example.JSNotes"
        }
    }

    /// The example's folder in the source tree.
    var folder: URL {
        switch self {
        case .python: SourceTree.path("Examples/Python")
        case .c: SourceTree.path("Examples/C")
        case .javascript: SourceTree.path("Examples/JavaScript")
        }
    }

    /// The shipped entry's `Exec=` line, which an installation replaces.
    var shippedExec: String {
        switch self {
        case .python: "Exec=python3 notes.py"
        case .c: "Exec=baton-notes"
        case .javascript: "Exec=gjs -m notes.js"
        }
    }

    var shippedEntry: URL { folder.appendingPathComponent("Resources/\(appID).desktop") }
}

/// A notes example under test (`Examples/Python/notes.py` run by Debian's `/usr/bin/python3`,
/// `Examples/C/notes.c` built here with `cc` and `baton-1-uninstalled.pc`,
/// `Examples/JavaScript/notes.js` run by Debian's `/usr/bin/gjs`), with the built
/// libbaton (`LD_LIBRARY_PATH`) and its typelib (`GI_TYPELIB_PATH`, by `scripts/gir.sh`), its
/// trace in its own file.
final class NotesExampleProcess: ExampleAppProcess {
    static let activityType = "org.example.notes.note"
    static let python = URL(fileURLWithPath: "/usr/bin/python3")
    static let gjs = URL(fileURLWithPath: "/usr/bin/gjs")

    /// The built products: libbaton-1.so, and gir/ with its typelib and .pc files.
    static var productsFolder: URL { ServiceSession.productsFolder }
    static var typelibFolder: URL { productsFolder.appendingPathComponent("gir") }
    /// The C example, built by ``requirements(_:)``.
    static var builtCExample: URL { productsFolder.appendingPathComponent("gobject-examples/baton-notes") }

    let language: NotesLanguage
    /// The folder its script is run from: the example's own, or a copy elsewhere.
    let scriptFolder: URL
    /// The process, when this test started it (not batond).
    private(set) var startedProcess: Process?

    init(_ language: NotesLanguage, root: URL, scriptFolder: URL? = nil) {
        self.language = language
        self.scriptFolder = scriptFolder ?? language.folder
        super.init(program: language.appID, root: root)
    }

    var appID: String { language.appID }

    /// The program and its arguments.
    var command: [String] {
        switch language {
        case .python: [Self.python.path, scriptFolder.appendingPathComponent("notes.py").path]
        case .c: [Self.builtCExample.path]
        case .javascript: [Self.gjs.path, "-m", scriptFolder.appendingPathComponent("notes.js").path]
        }
    }

    /// What a process needs to find libbaton and its typelib, and where it traces.
    var libraryEnvironment: [String: String] {
        ["GI_TYPELIB_PATH": Self.typelibFolder.path, "LD_LIBRARY_PATH": Self.productsFolder.path,
         "BATON_TRACE": traceURL.path]
    }

    /// Skips unless the library is built and the language's tools are here; makes the typelib
    /// (and builds the C example) once per test run.
    static func requirements(_ languages: NotesLanguage...) throws {
        if let missing = TestDesktopKind.x11.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(FileManager.default.fileExists(atPath: productsFolder.appendingPathComponent("libbaton-1.so").path),
                          "libbaton-1.so is not built: run `swift build --build-tests` first")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/g-ir-scanner"),
                          "g-ir-scanner is missing (gobject-introspection)")
        try once("scripts/gir.sh") { try run(["/bin/bash", SourceTree.path("scripts/gir.sh").path, productsFolder.path]) }
        for language in languages {
            switch language {
            case .python:
                try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py"),
                                  "python3-gi is missing")
            case .c:
                try once("cc notes.c") { try buildCExample() }
            case .javascript:
                try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: gjs.path), "gjs is missing")
            }
        }
    }

    /// The outcome of each step run once: nil when it succeeded, else its output.
    private nonisolated(unsafe) static var steps: [String: String?] = [:]

    private static func once(_ step: String, _ body: () throws -> Void) throws {
        if steps[step] == nil {
            do {
                try body()
                steps[step] = .some(nil)
            } catch {
                steps[step] = .some("\(error)")
            }
        }
        if case .some(.some(let failure)) = steps[step] { XCTFail("\(step) failed: \(failure)") }
    }

    /// Compiles `Examples/C/notes.c` against the build, as its comment says, with the build's
    /// library folder as its run path.
    private static func buildCExample() throws {
        try FileManager.default.createDirectory(at: builtCExample.deletingLastPathComponent(), withIntermediateDirectories: true)
        let flags = try run(["/usr/bin/env", "PKG_CONFIG_PATH=\(typelibFolder.path)", "pkg-config", "--cflags", "--libs",
                             "baton-1", "gtk4"])
            .split(whereSeparator: \.isWhitespace).map(String.init)
        _ = try run(["/usr/bin/cc", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror",
                     NotesLanguage.c.folder.appendingPathComponent("notes.c").path, "-o", builtCExample.path]
                    + flags + ["-Wl,-rpath,\(productsFolder.path)"])
    }

    /// Runs a command to its end; returns its output, or throws it when it fails.
    @discardableResult
    private static func run(_ arguments: [String]) throws -> String {
        let result = try runTool(arguments[0], Array(arguments.dropFirst()), timeout: 300)
        guard result.status == 0 else {
            throw FixtureError("\(arguments.joined(separator: " ")): \(result.output)\(result.errorOutput)")
        }
        return result.output
    }

    /// Starts the app with `environment` (a session's) on this process's desktop.
    func launchNotes(environment: [String: String]) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment.merging(libraryEnvironment) { $1 }.merging(desktop.environment) { $1 }
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = log
        try process.run()
        try log.close()
        startedProcess = process
        pid = process.processIdentifier
    }

    /// Installs the app in `session` (its desktop entry, starting this instance), so that the
    /// session's batond verifies and starts it.
    func installNotes(in session: ServiceSession) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let variables = libraryEnvironment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let exec = (["Exec=env"] + variables + command).joined(separator: " ")
        let entry = try String(contentsOf: language.shippedEntry, encoding: .utf8)
            .replacingOccurrences(of: language.shippedExec, with: exec)
        try entry.write(to: session.dataHome.appendingPathComponent("applications/\(appID).desktop"),
                        atomically: true, encoding: .utf8)
    }

    /// Ends the process: the one this test started, or one batond started that it was told of.
    func stop() {
        if let startedProcess {
            guard startedProcess.isRunning else { return }
            startedProcess.terminate()
            startedProcess.waitUntilExit()
        } else if let pid {
            kill(pid, SIGTERM)
        }
    }

    /// The text of the note in the last update pass.
    var lastSavedText: String? {
        events().last { $0.event == "updated" }?.userInfo?["text"] as? String
    }
}
