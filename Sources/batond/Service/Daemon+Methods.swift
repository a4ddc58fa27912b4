import BatonBus
import BatonGLib

/// `org.baton.Daemon1`'s methods: one table, assembled here from the rows each feature
/// declares in its own file, through which every call goes.
extension Daemon {
    /// Every method, in the order of the files that declare them: the core's here in
    /// `Service/`, then each feature's, from its folder (`Features/<Name>/Daemon+<Name>.swift`).
    static let methodRows: [DaemonMethod] = registrationMethods + recordMethods + continuationMethods
        + pairingMethods + settingsMethods + diagnosisMethods
        + offerMethods + renameMethods + phoneMethods + domainMethods + clipboardMethods

    /// Every method by name. `DaemonMethodTableTests` checks that the names are unique and that
    /// the table and the introspection document agree.
    static let methods: [String: DaemonMethod] = Dictionary(methodRows.map { ($0.name, $0) },
                                                            uniquingKeysWith: { first, _ in first })

    /// Answers `call` through its row of ``methods``: an unknown method gets
    /// `org.freedesktop.DBus.Error.UnknownMethod`, arguments of other types
    /// ``DaemonMethod/mismatch``, and an error the handler throws goes back as it is.
    func handle(_ call: BusMethodCall) {
        guard let method = Self.methods[call.method] else {
            call.fail(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.method)")
            return
        }
        do {
            guard call.arguments.map(\.signature) == method.arguments else { throw method.mismatch }
            try method.handle(self, call, DaemonArguments(values: call.arguments, method: method))
        } catch {
            call.fail(with: error)
        }
    }
}
