import BatonGLib
import CGLib
import Foundation

/// A stand-in for kdeconnectd on the test's bus (`org.kde.kdeconnect`), with one paired,
/// reachable phone "Pixel" (`/modules/kdeconnect/devices/pixel`), for what the real one never
/// passes on: its `shareReceived` signal with any text at all, as another version of it, or
/// another program that took its name, could send. The test asks for each signal with
/// `org.baton.Test.Share.Receive(s)` on the phone's share object; the stand-in emits
/// `org.kde.kdeconnect.device.share.shareReceived` with that text, from that object.
@MainActor
func runKDEConnectStandIn() -> Int32 {
    guard let connection = try? BusConnection.session() else { return 1 }
    let daemonPath = "/modules/kdeconnect"
    let devicePath = "\(daemonPath)/devices/pixel"
    let daemonXML = """
        <node><interface name="org.kde.kdeconnect.daemon">
          <method name="devices"><arg type="b" direction="in"/><arg type="b" direction="in"/><arg type="as" direction="out"/></method>
        </interface></node>
        """
    let propertiesXML = """
        <node><interface name="org.freedesktop.DBus.Properties">
          <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
        </interface></node>
        """
    let testXML = """
        <node><interface name="org.baton.Test.Share">
          <method name="Receive"><arg type="s" direction="in"/></method>
        </interface></node>
        """
    do {
        try connection.export(path: daemonPath, interface: "org.kde.kdeconnect.daemon", introspectionXML: daemonXML) { call in
            call.reply([.strings(["pixel"])])
        }
        try connection.export(path: devicePath, interface: "org.freedesktop.DBus.Properties", introspectionXML: propertiesXML) { call in
            let properties: [String: BusValue] = ["type": .string("smartphone"), "name": .string("Pixel"), "isReachable": .bool(true),
                                                  "isTrusted": .bool(true)]
            call.reply([.dictionary(call.arguments.at(0)?.string == "org.kde.kdeconnect.device" ? properties : [:])])
        }
        try connection.export(path: "\(devicePath)/share", interface: "org.baton.Test.Share", introspectionXML: testXML) { call in
            connection.emitSignal(path: "\(devicePath)/share", interface: "org.kde.kdeconnect.device.share", name: "shareReceived",
                                  arguments: [.string(call.arguments.at(0)?.string ?? "")])
            call.reply()
        }
    } catch {
        return 1
    }
    let loop = g_main_loop_new(nil, 0)
    connection.ownName("org.kde.kdeconnect", acquired: { report("kdeconnect stand-in ready") }, lost: { g_main_loop_quit(loop) })
    MainQueueBridge.install()
    g_main_loop_run(loop)
    return 0
}
