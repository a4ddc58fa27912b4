import Foundation

/// A small Baton app and a desktop-notification server, for the service tests.
///
///     BatonTestApp app [--app-id ID] [--team T] [--types a,b] [--text T]
///                      [--fault hang-on-save|slow-save|exit-on-save|huge] [--restore-delay S] [--unique] [--ineligible]
///                      [--gapplication-service] [--log FILE] [--document-url URL]
///     BatonTestApp notification-server --log FILE [--invoke ACTION[,ACTION…] [--activation-token T]]
///     BatonTestApp register --count N [--app-id ID] [--team T] [--types a,b]
///     BatonTestApp impostor-daemon
///     BatonTestApp fake-systemd --log FILE [--fail]
///     BatonTestApp phone-service --flavor gsconnect|valent --log FILE
///     BatonTestApp kdeconnect-service
///     BatonTestApp logind   (PrepareForSleep(true) on SIGUSR1, (false) on SIGUSR2)
///
/// `app` appends " (active)" to its note on SIGUSR1, as a user typing would, and gives its
/// activity a summary the service refuses on SIGUSR2; on SIGWINCH it retitles its activity ten
/// times in one turn of the main loop.
let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// Writes a line to standard error at once (the tests read it from the process's log).
func report(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

let status: Int32 = MainActor.assumeIsolated {
    switch arguments.first {
    case "app": return runNoteApp()
    case "notification-server": return runNotificationServer(log: option("--log") ?? "/dev/null",
                                                             invoke: option("--invoke"),
                                                             activationToken: option("--activation-token"))
    case "register": return runRegistrations(count: Int(option("--count") ?? "1") ?? 1,
                                             appID: option("--app-id") ?? "org.baton.TestApp",
                                             teamID: option("--team") ?? "org.baton.test",
                                             types: (option("--types") ?? "org.baton.test.note").split(separator: ",").map(String.init))
    case "impostor-daemon": return runImpostorDaemon()
    case "fake-systemd": return runFakeSystemd(log: option("--log") ?? "/dev/null", fail: arguments.contains("--fail"))
    case "phone-service": return runPhoneServiceStandIn(flavor: option("--flavor") ?? "", log: option("--log") ?? "/dev/null")
    case "kdeconnect-service": return runKDEConnectStandIn()
    case "tailscale-localapi": return runTailscaleLocalAPIStandIn(socket: option("--socket") ?? "", status: option("--status") ?? "")
    case "logind": return runLogindStandIn()
    default:
        FileHandle.standardError.write(Data("usage: BatonTestApp app|notification-server|register|impostor-daemon|fake-systemd|phone-service|kdeconnect-service|tailscale-localapi|logind [options]\n".utf8))
        return 64
    }
}
exit(status)
