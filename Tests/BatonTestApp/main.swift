import Foundation

/// A small Baton app and a desktop-notification server, for the service tests.
///
///     BatonTestApp app [--app-id ID] [--team T] [--types a,b] [--text T]
///                      [--fault hang-on-save|exit-on-save|huge] [--restore-delay S] [--unique] [--ineligible]
///     BatonTestApp notification-server --log FILE [--invoke ACTION]
let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let status: Int32 = MainActor.assumeIsolated {
    switch arguments.first {
    case "app": return runNoteApp()
    case "notification-server": return runNotificationServer(log: option("--log") ?? "/dev/null",
                                                             invoke: option("--invoke"))
    default:
        FileHandle.standardError.write(Data("usage: BatonTestApp app|notification-server [options]\n".utf8))
        return 64
    }
}
exit(status)
