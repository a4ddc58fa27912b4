import Baton
import BatonGtk
import CGtk
import Foundation

/// A child process for the GTK tests: runs one scenario inside a real `g_application_run`
/// and reports through its exit status and standard output.
///
/// `main-queue-bridge`: a `Task { @MainActor in }` must run inside a running GLib main loop
/// (no display needed) and quit it; exit 0 when it did, 2 when the loop gave up after 5 s.
@MainActor
func runScenario(_ name: String) -> Int32 {
    switch name {
    case "main-queue-bridge":
        let loop = g_main_loop_new(nil, 0)
        MainQueueBridge.install()
        var taskRan = false
        Task { @MainActor in
            taskRan = true
            print("task ran inside the GLib loop")
            g_main_loop_quit(loop)
        }
        g_timeout_add_seconds(5, { _ in
            exit(2)
        }, nil)
        g_main_loop_run(loop)
        g_main_loop_unref(loop)
        return taskRan ? 0 : 3
    default:
        FileHandle.standardError.write(Data("unknown scenario \(name)\n".utf8))
        return 64
    }
}

let scenario = CommandLine.arguments.dropFirst().first ?? ""
exit(MainActor.assumeIsolated { runScenario(scenario) })
