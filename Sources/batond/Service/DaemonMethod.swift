import BatonBus
import BatonGLib

/// One method of `org.baton.Daemon1`, a row of ``Daemon/methods``: its name, the D-Bus types
/// of the arguments it takes, and what answers it.
///
/// Each feature declares its rows in its own folder (`Features/Phones/Daemon+Phones.swift` the
/// phones'), the core in `Service/` (`Daemon+Settings.swift` the settings');
/// `Daemon+Methods.swift` assembles them.
struct DaemonMethod {
    let name: String
    /// The D-Bus type of each in argument, in order (`["s", "a{sv}"]`), as the introspection
    /// document `org.baton.Daemon1.xml` gives them.
    let arguments: [String]
    /// Answers `call`, whose arguments match ``arguments``: at once, or later through
    /// ``Daemon/answer(_:_:)``. An error thrown answers the call with that error.
    let handle: @MainActor (Daemon, BusMethodCall, DaemonArguments) throws -> Void

    init(_ name: String, _ arguments: [String] = [],
         _ handle: @escaping @MainActor (Daemon, BusMethodCall, DaemonArguments) throws -> Void) {
        self.name = name
        self.arguments = arguments
        self.handle = handle
    }

    /// The error for arguments of other types: `expected (s, a{sv})`.
    var mismatch: ServiceError {
        .invalidArguments("expected (\(arguments.joined(separator: ", ")))")
    }
}

/// The arguments of a call, read by position with the type its ``DaemonMethod`` declares.
///
/// The table checks them against ``DaemonMethod/arguments`` before the handler runs (GDBus
/// already refuses calls of another signature); a read that finds another type throws the
/// method's ``DaemonMethod/mismatch`` all the same.
struct DaemonArguments {
    let values: [BusValue]
    let method: DaemonMethod

    func string(_ index: Int) throws -> String { try read(index, \.string) }
    func bool(_ index: Int) throws -> Bool { try read(index, \.bool) }
    func bytes(_ index: Int) throws -> [UInt8] { try read(index, \.bytes) }
    func strings(_ index: Int) throws -> [String] { try read(index, \.strings) }
    func dictionary(_ index: Int) throws -> [String: BusValue] { try read(index, \.dictionary) }

    private func read<Value>(_ index: Int, _ value: (BusValue) -> Value?) throws -> Value {
        guard let result = values.at(index).flatMap(value) else { throw method.mismatch }
        return result
    }
}
