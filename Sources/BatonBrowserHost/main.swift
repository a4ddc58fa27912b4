import BatonGLib
import CGLib
import Foundation
import Glibc

// baton-browser-host: the native messaging host of Baton's browser extension. The browser
// starts it (`org.baton.browser_host`), writes the extension's messages to its standard
// input and ends it by closing standard input; batond sees it as the app
// org.baton.BrowserHost, whose current activity is the page in front.

if isatty(STDIN_FILENO) != 0 || CommandLine.arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
    print("""
        usage: baton-browser-host
          The native messaging host of Baton's browser extension: the browser starts it and talks to it
          on standard input. Installed by scripts/install-service.sh with the browsers' manifests
          (org.baton.browser_host); see docs/web.md in Baton's repository.
        """)
    exit(isatty(STDIN_FILENO) != 0 ? 2 : 0)
}

// A browser that quits may close the pipe of standard error first: a line written then must
// fail, not end the host before it resigns.
signal(SIGPIPE, SIG_IGN)

let status: Int32 = MainActor.assumeIsolated {
    MainQueueBridge.install()
    let loop = g_main_loop_new(nil, 0)
    defer { g_main_loop_unref(loop) }
    let connection: BusConnection
    do {
        connection = try BusConnection.session()
    } catch {
        HostLog.write("no D-Bus session bus, so no page is offered: \(error)")
        return 1
    }
    let host = BrowserHost(connection: connection)
    do {
        try host.start()
    } catch {
        HostLog.write("cannot export the application object: \(error)")
        return 1
    }
    var stopping = false
    /// Resigns, then leaves the main loop: at the end of standard input (the browser closed
    /// the extension's port, or quit) or on SIGTERM and SIGINT.
    @MainActor func stop() {
        guard !stopping else { return }
        stopping = true
        host.resignAll(timeout: 2) { g_main_loop_quit(loop) }
    }
    let reader = StandardInputReader { input, ended in
        if let input { host.receive(input) }
        if ended { stop() }
    }
    reader.start()
    GLibSources.onUnixSignal(SIGTERM) { stop() }
    GLibSources.onUnixSignal(SIGINT) { stop() }
    g_main_loop_run(loop)
    return 0
}
exit(status)
