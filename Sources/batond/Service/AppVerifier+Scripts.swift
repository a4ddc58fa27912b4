import BatonGLib
import Foundation

/// A program a desktop entry runs, with the script it runs it on when the entry names one:
/// `python3 /opt/notes/notes.py`, or a script named as the program itself (`meld`, whose
/// first line is `#!/usr/bin/python3`), which the system runs as `python3 /usr/bin/meld`.
struct EntryRun: Equatable, Sendable {
    let program: String
    let script: String?
}

extension DesktopEntryPrograms {
    /// What the entry runs: `Exec=`'s and the D-Bus service's programs, each with its script
    /// (``ExecLine/script(of:)``), and `TryExec=`; a program that is itself a script also as
    /// its interpreter on it.
    func runs(searchPath: String?) -> [EntryRun] {
        var runs = [exec, serviceExec].compactMap { $0 }.compactMap { line in
            ExecLine.program(of: line).map { EntryRun(program: $0, script: ExecLine.script(of: line)) }
        }
        if let tryExec, !tryExec.isEmpty { runs.append(EntryRun(program: tryExec, script: nil)) }
        for run in runs {
            guard let located = ProcessExecutable.locate(run.program, searchPath: searchPath),
                  let interpreter = ProcessExecutable.interpreter(ofScript: located) else { continue }
            runs.append(EntryRun(program: interpreter, script: located))
        }
        return runs
    }
}

extension AppVerifier {
    /// Whether a process whose `arguments` (past its program, read in `workingDirectory`)
    /// name `script` as the first that is not an option: the script an interpreter runs.
    static func runs(_ script: String, arguments: [String], workingDirectory: String?) -> Bool {
        guard let first = ExecLine.firstOperand(arguments) else { return false }
        let path: String
        if first.hasPrefix("/") {
            path = first
        } else if let workingDirectory {
            path = URL(fileURLWithPath: workingDirectory).appendingPathComponent(first).path
        } else {
            return false
        }
        return ProcessExecutable.canonical(path) == ProcessExecutable.canonical(script)
    }
}
