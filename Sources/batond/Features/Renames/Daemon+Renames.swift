import BatonBus

/// Renames' D-Bus half: `SetDeviceName`, which renames this device; the network half
/// (``RenameFeature/announce(_:)``) tells the paired devices when the setting changes.
extension Daemon {
    /// The row of ``methods`` for renaming this device.
    static var renameMethods: [DaemonMethod] {
        [
            DaemonMethod("SetDeviceName", ["s"]) { daemon, call, arguments in
                try daemon.setName(try arguments.string(0))
                call.reply()
            },
        ]
    }

    /// `SetDeviceName`: refused when batond's `--name` fixes the name, or for a name that
    /// cannot be one.
    func setName(_ name: String) throws {
        guard !isNameFixed else {
            throw ServiceError.invalidArguments("this device's name is fixed by batond's --name option: start batond without it to rename the device here")
        }
        do {
            try NetworkSettings.checkName(name)
        } catch {
            throw ServiceError.invalidArguments("\(error)")
        }
        try change { $0.name = name }
    }
}
