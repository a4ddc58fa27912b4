import Baton
import BatonGLib
import CGLib
import CGtk
import Foundation
import Logging

/// Saves the activity of each open window and continues them on the next launch: state
/// restoration on Handoff's own machinery, which GTK does not offer yet.
///
/// Opt in with ``BatonApplication/enableStateRestoration(directory:interval:)``. State is
/// saved on quit (the application's `shutdown`), on SIGTERM and SIGINT (then the
/// application quits), when the session ends (`query-end`), and every `interval` seconds
/// while running. Each window's activity gets a forced update pass, then is written in
/// Baton's binary format, one file per window (mode 0600 in a 0700 folder). On launch,
/// ``restore()`` continues each saved activity through the application delegate, exactly
/// as an activity from another device would arrive.
@MainActor
public final class StateRestoration {
    /// Where the state is kept: by default `$XDG_STATE_HOME/<application id>/`.
    public let directory: URL
    private weak var application: BatonApplication?
    private let logger = Logger(label: "baton.state-restoration")
    /// While `true`, nothing is saved and what was saved before stays: set it when the app
    /// cannot restore its windows in this run (it could not read its own files), so that a
    /// failed start never replaces the last session with an empty one.
    public var isPaused = false

    init(application: BatonApplication, directory: URL?) {
        self.application = application
        self.directory = directory ?? Self.defaultDirectory(for: application.applicationID)
    }

    /// `$XDG_STATE_HOME/<applicationID>`, or `~/.local/state/<applicationID>`.
    public static func defaultDirectory(for applicationID: String) -> URL {
        XDGDirectories.stateHome.appendingPathComponent(applicationID, isDirectory: true)
    }

    private var windowsDirectory: URL { directory.appendingPathComponent("windows", isDirectory: true) }

    /// The activities to save: each open window's, the active window last so it comes back
    /// on top.
    private func activitiesToSave(of application: BatonApplication) -> [UserActivity] {
        let main = application.center.mainWindow
        let windows = application.applicationWindows.filter { $0 !== main }
            + application.applicationWindows.filter { $0 === main }
        return windows.compactMap(\.electableActivity)
    }

    /// Saves every open window's activity now, replacing what was saved before.
    /// Returns how many were saved.
    ///
    /// A window whose activity cannot be encoded (such as a `userInfo` over the limit) is
    /// logged and left out; the others are still saved. Once the application is gone, or
    /// while ``isPaused``, nothing is saved and what was saved before stays.
    @discardableResult
    public func save() throws -> Int {
        guard let application, !isPaused else { return 0 }
        var payloads: [Data] = []
        for activity in activitiesToSave(of: application) {
            application.center.updateNow(activity)
            do {
                payloads.append(try activity.payload.encoded())
            } catch {
                logger.error("not saving a window's \(activity.activityType) activity: \(error)")
            }
        }
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: windowsDirectory, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
        var written: Set<String> = []
        for (index, payload) in payloads.enumerated() {
            let name = String(format: "window-%03d.activity", index)
            let file = windowsDirectory.appendingPathComponent(name)
            let temporary = windowsDirectory.appendingPathComponent(".\(name).tmp")
            guard fileManager.createFile(atPath: temporary.path, contents: payload,
                                         attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
            }
            guard rename(temporary.path, file.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
            }
            written.insert(name)
        }
        for name in try fileManager.contentsOfDirectory(atPath: windowsDirectory.path) where !written.contains(name) {
            try? fileManager.removeItem(at: windowsDirectory.appendingPathComponent(name))
        }
        return payloads.count
    }

    /// Continues each saved activity through the application delegate (`willContinue`,
    /// then `continue` with a restoration handler), without disturbing a continuation that
    /// is pending (`Application.beginRestoration(activityType:)`). Returns how many were
    /// continued; one the delegate declines, or that finds no delegate, is logged.
    ///
    /// A file that cannot be read or decoded, is not a regular file, or is larger than an
    /// encoded activity can be, is logged and skipped; it is removed at the next save.
    @discardableResult
    public func restore() -> Int {
        guard let application else { return 0 }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: windowsDirectory.path))?
            .filter { $0.hasSuffix(".activity") && !$0.hasPrefix(".") }
            .sorted() ?? []
        var restored = 0
        for name in names {
            let file = windowsDirectory.appendingPathComponent(name)
            do {
                let payload = try UserActivityPayload(decoding: Self.readSavedFile(file))
                let activity = try UserActivity(payload: payload, center: application.center)
                let continuation = application.beginRestoration(activityType: payload.activityType)
                if continuation.complete(with: activity, whenRestored: nil) {
                    restored += 1
                } else {
                    logger.warning("the window saved in \(name) was not restored: \(continuation.error.map { "\($0)" } ?? "no outcome")")
                }
            } catch {
                logger.error("cannot restore \(file.path): \(error)")
            }
        }
        return restored
    }

    /// The bytes of a saved window, read only from a regular file no larger than an encoded
    /// activity can be.
    private static func readSavedFile(_ file: URL) throws -> Data {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw UserActivityError.malformedPayload("\(file.lastPathComponent) is not a regular file")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= UserActivityPayload.maximumEncodedSize else {
            throw UserActivityError.malformedPayload(
                "\(file.lastPathComponent) is \(size) bytes, over the limit of \(UserActivityPayload.maximumEncodedSize)")
        }
        return try Data(contentsOf: file)
    }

    /// Saves, logging instead of throwing.
    func saveLogging(reason: String) {
        do {
            let count = try save()
            logger.debug("saved \(count) window(s) on \(reason)")
        } catch {
            logger.error("could not save window state on \(reason): \(error)")
        }
    }

    /// Saves at the moments the type's documentation lists. Call it before the application
    /// runs: `register-session`, which brings `query-end`, is read at `startup`. A
    /// non-unique application has no session-bus connection and never gets `query-end`.
    func startSaving(for application: BatonApplication, every interval: UInt32) {
        let instance = UnsafeMutableRawPointer(application.gtkApplication)
        GObjectSignals.connect(instance, "shutdown") { [weak self] in self?.saveLogging(reason: "quit") }
        GObjectSignals.connect(instance, "query-end") { [weak self] in self?.saveLogging(reason: "session end") }
        baton_application_set_register_session(application.gtkApplication, 1)
        for signal in [SIGTERM, SIGINT] {
            GLibSources.onUnixSignal(signal) { [weak self] in
                guard let self else { return }
                self.saveLogging(reason: "signal")
                self.application?.quit()
            }
        }
        if interval > 0 {
            GLibSources.every(seconds: interval) { [weak self] in self?.saveLogging(reason: "timer") }
        }
    }
}

extension BatonApplication {
    /// Opts in to state restoration: saves each window's activity on quit, on SIGTERM and
    /// SIGINT, at session end and every `interval` seconds (0 turns the timer off). Call it
    /// before ``run(arguments:)``, so the session end reaches the application. State goes
    /// `directory` (by default `$XDG_STATE_HOME/<application id>/`). Call
    /// ``StateRestoration/restore()`` on activation to bring the windows back.
    @discardableResult
    public func enableStateRestoration(directory: URL? = nil, interval: UInt32 = 30) -> StateRestoration {
        let restoration = StateRestoration(application: self, directory: directory)
        restoration.startSaving(for: self, every: interval)
        stateRestoration = restoration
        return restoration
    }
}
