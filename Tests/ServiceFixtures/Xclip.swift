import Foundation

/// Debian's real `xclip` as the app that copies and pastes on an X display's clipboard
/// (`CLIPBOARD`, the one Ctrl+C and Ctrl+V use), for the clipboard tests.
public enum Xclip {
    /// Why xclip cannot run here, or `nil` when it can.
    public static var missingRequirement: String? {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/xclip") ? nil : "xclip is missing (scripts/setup.sh installs it)"
    }

    /// Copies `bytes` as `type` (xclip's default: text) on `display`; the process returned
    /// holds the clipboard until another copy takes it, or it is ended. `folder` keeps the file
    /// it copies from.
    public static func copy(_ bytes: [UInt8], type: String? = nil, on display: String, in folder: URL) throws -> Process {
        let file = folder.appendingPathComponent("copy-\(UUID().uuidString)")
        try Data(bytes).write(to: file)
        let process = xclip(["-quiet", "-i", file.path] + (type.map { ["-t", $0] } ?? []), on: display)
        try process.run()
        return process
    }

    /// Starts pasting `target` (xclip's default: `UTF8_STRING`) on `display` into the file
    /// returned; the paste is over when the process ends.
    public static func startPaste(_ target: String? = nil, on display: String, in folder: URL) throws -> (process: Process, output: URL) {
        let output = folder.appendingPathComponent("paste-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = xclip(["-o"] + (target.map { ["-t", $0] } ?? []), on: display)
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        return (process, output)
    }

    /// What xclip pastes as `target` on `display`, waiting at most `timeout` seconds; for a
    /// clipboard another process holds (this one's main loop is not run meanwhile).
    public static func paste(_ target: String? = nil, on display: String, in folder: URL, timeout: TimeInterval = 10) throws -> [UInt8] {
        let (process, output) = try startPaste(target, on: display, in: folder)
        return try pasted(by: process, into: output, waiting: waitUntil(timeout: timeout) { !process.isRunning })
    }

    /// The bytes a paste started with ``startPaste(_:on:in:)`` wrote, once `ended` says it
    /// ended in time; throws when it did not, or failed.
    public static func pasted(by process: Process, into output: URL, waiting ended: Bool) throws -> [UInt8] {
        guard ended else {
            process.terminate()
            throw FixtureError("xclip -o \(process.arguments?.joined(separator: " ") ?? "") did not end")
        }
        guard process.terminationStatus == 0 else {
            throw FixtureError("xclip \(process.arguments?.joined(separator: " ") ?? "") ended with \(process.terminationStatus)")
        }
        return Array(try Data(contentsOf: output))
    }

    private static func xclip(_ arguments: [String], on display: String) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xclip")
        process.arguments = ["-selection", "clipboard"] + arguments
        process.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }
}
