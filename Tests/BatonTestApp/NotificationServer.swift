import BatonGLib
import CGLib
import Foundation

/// The part of `org.freedesktop.Notifications` batond uses.
private let notificationsXML = """
    <node>
      <interface name="org.freedesktop.Notifications">
        <method name="Notify">
          <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
          <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
          <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/>
        </method>
        <method name="CloseNotification"><arg type="u" direction="in"/></method>
        <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
        <signal name="ActivationToken"><arg type="u"/><arg type="s"/></signal>
        <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
      </interface>
    </node>
    """

/// A desktop-notification server on the session bus, as a desktop shell runs one: it
/// records each notification as a JSON line in `log` (its id, the id it replaces, its text,
/// actions, app name and icon, and its hints that are strings), and each `CloseNotification`
/// (`{"closed": ID}`), and, with `invoke` (action ids, comma-separated), answers each
/// notification that has one of them with the first it has, as a user clicking it would. A notification that replaces a shown one keeps its id, as the spec says.
@MainActor
func runNotificationServer(log: String, invoke: String?, activationToken: String? = nil) -> Int32 {
    guard let connection = try? BusConnection.session() else { return 1 }
    var nextID: UInt32 = 1
    var shown = Set<UInt32>()
    func append(_ record: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]),
           let handle = FileHandle(forWritingAtPath: log) {
            handle.seekToEndOfFile()
            handle.write(data + Data("\n".utf8))
            try? handle.close()
        }
    }
    let path = "/org/freedesktop/Notifications"
    let interface = "org.freedesktop.Notifications"
    do {
        try connection.export(path: path, interface: interface, introspectionXML: notificationsXML) { call in
            switch call.method {
            case "Notify":
                var replaces: UInt32 = 0
                if case .uint32(let value)? = call.arguments.at(1) { replaces = value }
                let id = shown.contains(replaces) ? replaces : nextID
                if id == nextID { nextID += 1 }
                shown.insert(id)
                let hints = call.arguments.at(6)?.dictionary ?? [:]
                append([
                    "id": id, "replaces": replaces, "summary": call.arguments.at(3)?.string ?? "",
                    "body": call.arguments.at(4)?.string ?? "",
                    "actions": call.arguments.at(5)?.strings ?? [], "arguments": call.arguments.count,
                    "appName": call.arguments.at(0)?.string ?? "", "appIcon": call.arguments.at(2)?.string ?? "",
                    "stringHints": hints.compactMapValues(\.string),
                ])
                call.reply([.uint32(id)])
                // The first of the actions to invoke that this notification has, as a person
                // clicks only what is shown.
                let offered = call.arguments.at(5)?.strings ?? []
                if let invoke = invoke?.split(separator: ",").map(String.init).first(where: offered.contains) {
                    GLibSources.once(after: 0.2) {
                        if let activationToken {   // as a shell does since spec 1.2, before the action
                            connection.emitSignal(path: path, interface: interface, name: "ActivationToken",
                                                  arguments: [.uint32(id), .string(activationToken)])
                        }
                        connection.emitSignal(path: path, interface: interface, name: "ActionInvoked",
                                              arguments: [.uint32(id), .string(invoke)])
                    }
                }
            case "CloseNotification":
                if case .uint32(let id)? = call.arguments.at(0) {
                    shown.remove(id)
                    append(["closed": id])
                }
                call.reply()
            default:
                call.reply()
            }
        }
    } catch {
        return 1
    }
    FileManager.default.createFile(atPath: log, contents: nil)
    let loop = g_main_loop_new(nil, 0)
    connection.ownName(interface, acquired: { FileHandle.standardError.write(Data("notification server ready\n".utf8)) }, lost: { g_main_loop_quit(loop) })
    MainQueueBridge.install()
    g_main_loop_run(loop)
    return 0
}
