import BatonGLib
import CGLib
import Foundation

/// The one method of `org.freedesktop.systemd1.Manager` batond calls, with systemd's signature.
private let managerXML = """
    <node>
      <interface name="org.freedesktop.systemd1.Manager">
        <method name="StartTransientUnit">
          <arg type="s" name="name" direction="in"/><arg type="s" name="mode" direction="in"/>
          <arg type="a(sv)" name="properties" direction="in"/><arg type="a(sa(sv))" name="aux" direction="in"/>
          <arg type="o" name="job" direction="out"/>
        </method>
      </interface>
    </node>
    """

/// A stand-in for the systemd user manager on the test's private bus: it owns
/// `org.freedesktop.systemd1` and records each `StartTransientUnit` call as a JSON line in
/// `log` (name, mode, properties, auxiliary units, signature, and whether the process in
/// `PIDs` was alive then). It moves nothing into any control group. With `fail`, it answers
/// every call with an error, as a manager that refuses would.
@MainActor
func runFakeSystemd(log: String, fail: Bool) -> Int32 {
    guard let connection = try? BusConnection.session() else { return 1 }
    var jobs: UInt32 = 0
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    do {
        try connection.export(path: "/org/freedesktop/systemd1", interface: "org.freedesktop.systemd1.Manager",
                              introspectionXML: managerXML) { call in
            guard call.method == "StartTransientUnit" else {
                return call.fail(name: "org.freedesktop.DBus.Error.UnknownMethod", message: call.method)
            }
            var properties: [String: Any] = [:]
            for property in call.arguments.at(2)?.array ?? [] {
                guard let fields = property.tuple, let key = fields.at(0)?.string,
                      let value = fields.at(1)?.variant else { continue }
                properties[key] = json(value)
            }
            let pids = (properties["PIDs"] as? [Any] ?? []).compactMap { $0 as? Int64 }
            let record: [String: Any] = [
                "name": call.arguments.at(0)?.string ?? "", "mode": call.arguments.at(1)?.string ?? "",
                "properties": properties, "aux": call.arguments.at(3)?.array?.count ?? -1,
                "signature": "(" + call.arguments.map(\.signature).joined() + ")",
                "alive": pids.map { kill(Int32(truncatingIfNeeded: $0), 0) == 0 },
            ]
            if let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]),
               let handle = FileHandle(forWritingAtPath: log) {
                handle.seekToEndOfFile()
                handle.write(data + Data("\n".utf8))
                try? handle.close()
            }
            if fail {
                return call.fail(name: "org.freedesktop.systemd1.UnitExists", message: "refused by the fake manager")
            }
            jobs += 1
            call.reply([.objectPath("/org/freedesktop/systemd1/job/\(jobs)")])
        }
    } catch {
        return 1
    }
    let loop = g_main_loop_new(nil, 0)
    connection.ownName("org.freedesktop.systemd1", acquired: { report("fake systemd ready") },
                       lost: { g_main_loop_quit(loop) })
    MainQueueBridge.install()
    g_main_loop_run(loop)
    return 0
}

/// A bus value as JSON: strings, integers as `Int64`, arrays, structs as arrays.
private func json(_ value: BusValue) -> Any {
    if let string = value.string { return string }
    if let integer = value.integer { return integer }
    if let bool = value.bool { return bool }
    if let elements = value.array ?? value.tuple { return elements.map(json) }
    if let inner = value.variant { return json(inner) }
    return "\(value)"
}
