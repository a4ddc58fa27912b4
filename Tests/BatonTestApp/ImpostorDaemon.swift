import BatonGLib
import CGLib
import Foundation

/// The part of `org.baton.Daemon1` an app calls.
private let daemonXML = """
    <node>
      <interface name="org.baton.Daemon1">
        <method name="Register">
          <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
        </method>
        <method name="PublishCurrent"><arg type="s" direction="in"/><arg type="a{sv}" direction="in"/></method>
        <method name="ResignCurrent"/>
      </interface>
    </node>
    """

/// A process that is not batond taking batond's name while batond is down, as an attacker
/// would: it answers `Register` and `PublishCurrent`, asks the app that published for the
/// activity (`Save`), and every 200 ms asks every other connection on the bus to save
/// (`Save("probe")`). Each outcome is reported once: `Save(ID) to NAME: answered N bytes` or
/// `Save(ID) to NAME: refused: ERROR`.
@MainActor
func runImpostorDaemon() -> Int32 {
    guard let connection = try? BusConnection.session() else { return 1 }
    var reported = Set<String>()
    func save(_ id: String, from name: String) {
        Task { @MainActor in
            let outcome: String
            do {
                let reply = try await connection.call(name, path: "/org/baton/Application", interface: "org.baton.Application1",
                                                      method: "Save", arguments: [.string(id)], timeout: 2)
                outcome = "answered \(reply.first?.bytes?.count ?? 0) bytes"
            } catch let error as BusError {
                guard ["org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
                       "org.freedesktop.DBus.Error.ServiceUnknown"].contains(error.remoteName ?? "") == false else { return }
                outcome = "refused: \(error.remoteName ?? error.description)"
            } catch {
                outcome = "refused: \(error)"
            }
            let line = "Save(\(id)) to \(name): \(outcome)"
            if reported.insert(line).inserted { report(line) }
        }
    }
    do {
        try connection.export(path: "/org/baton/Daemon", interface: "org.baton.Daemon1", introspectionXML: daemonXML) { call in
            switch call.method {
            case "Register":
                report("Register from \(call.sender) as \(call.arguments.at(0)?.string ?? "")")
                call.reply()
            case "PublishCurrent":
                let id = call.arguments.at(0)?.string ?? ""
                report("PublishCurrent from \(call.sender): \(id)")
                call.reply()
                save(id, from: call.sender)
            default:
                call.reply()
            }
        }
    } catch {
        return 1
    }
    MainQueueBridge.install()
    GLibSources.every(milliseconds: 200) {
        Task { @MainActor in
            let names = (try? await connection.call("org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                    interface: "org.freedesktop.DBus", method: "ListNames"))?
                .first?.strings ?? []
            for name in names where name.hasPrefix(":") && name != connection.uniqueName {
                save("probe", from: name)
            }
        }
    }
    let loop = g_main_loop_new(nil, 0)
    connection.ownName("org.baton.Daemon", acquired: { report("impostor owns org.baton.Daemon") },
                       lost: { g_main_loop_quit(loop) })
    g_main_loop_run(loop)
    return 0
}
