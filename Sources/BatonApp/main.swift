import ArgumentParser
import BatonGtk
import Foundation

/// The Baton app: this device, the devices in reach and the paired ones, offers from other
/// devices, the apps that continue activities, and what `baton doctor` finds.
struct BatonAppOptions: ParsableArguments {
    static let configuration = CommandConfiguration(
        commandName: "baton-app", abstract: "Handoff between your devices: pair them, see and continue their offers.")

    @Option(help: ArgumentHelp("The page to open: device, devices, offers, apps or doctor.", valueName: "page"))
    var page: String?

    func validate() throws {
        if let page, !MainWindow.pages.contains(where: { $0.name == page }) {
            throw ValidationError("no page \(page.debugDescription): device, devices, offers, apps or doctor")
        }
    }
}

let options = BatonAppOptions.parseOrExit()
let status = MainActor.assumeIsolated {
    // Held for the whole run: the application's handlers refer to it weakly.
    let controller = BatonAppController(initialPage: options.page)
    return withExtendedLifetime(controller) { controller.run() }
}
exit(status)
