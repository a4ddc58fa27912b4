import BatonGLib
import CGLib
import Foundation

/// A stand-in for GSConnect or Valent on the test's bus, exporting their interfaces as their
/// sources publish them (neither is packaged in Debian 12): an `ObjectManager` whose
/// `GetManagedObjects` lists a paired, connected phone "Pixel", a paired desktop and an
/// unpaired phone, and `org.gtk.Actions` on each device, whose `Activate` calls are written to
/// `log` as JSON lines (`device`, `action`, `parameter`).
@MainActor
func runPhoneServiceStandIn(flavor: String, log: String) -> Int32 {
    struct Flavor {
        let busName: String
        let root: String
        let interface: String
        /// The device's properties: name, kind, connected, paired.
        let properties: (String, String, Bool, Bool) -> [String: BusValue]
    }
    let flavors: [String: Flavor] = [
        "gsconnect": Flavor(busName: "org.gnome.Shell.Extensions.GSConnect", root: "/org/gnome/Shell/Extensions/GSConnect",
                            interface: "org.gnome.Shell.Extensions.GSConnect.Device") { name, kind, connected, paired in
            ["Name": .string(name), "Type": .string(kind), "Connected": .bool(connected), "Paired": .bool(paired),
             "Id": .string(name.lowercased() + "-id"), "IconName": .string("\(kind)-symbolic")]
        },
        "valent": Flavor(busName: "ca.andyholmes.Valent", root: "/ca/andyholmes/Valent",
                         interface: "ca.andyholmes.Valent.Device") { name, kind, connected, paired in
            ["Name": .string(name), "Id": .string(name.lowercased() + "-id"), "IconName": .string("\(kind == "desktop" ? "computer" : kind)-symbolic"),
             "State": .uint32((connected ? 1 : 0) | (paired ? 2 : 0))]
        },
    ]
    guard let flavor = flavors[flavor], let connection = try? BusConnection.session() else { return 1 }
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let devices: [(path: String, properties: [String: BusValue])] = [
        ("\(flavor.root)/Device/pixel", flavor.properties("Pixel", "phone", true, true)),
        ("\(flavor.root)/Device/workstation", flavor.properties("Workstation", "desktop", true, true)),
        ("\(flavor.root)/Device/stranger", flavor.properties("Stranger", "phone", true, false)),
    ]
    let managerXML = """
        <node><interface name="org.freedesktop.DBus.ObjectManager">
          <method name="GetManagedObjects"><arg type="a{oa{sa{sv}}}" name="objects" direction="out"/></method>
        </interface></node>
        """
    let actionsXML = """
        <node><interface name="org.gtk.Actions">
          <method name="Activate"><arg type="s" name="action" direction="in"/><arg type="av" name="parameter" direction="in"/>
            <arg type="a{sv}" name="platform_data" direction="in"/></method>
        </interface></node>
        """
    do {
        try connection.export(path: flavor.root, interface: "org.freedesktop.DBus.ObjectManager", introspectionXML: managerXML) { call in
            var objects: [BusValue: BusValue] = [:]
            for device in devices {
                objects[.objectPath(device.path)] = .dict(keyType: "s", valueType: "a{sv}",
                                                          [.string(flavor.interface): .dictionary(device.properties)])
            }
            call.reply([.dict(keyType: "o", valueType: "a{sa{sv}}", objects)])
        }
        for device in devices {
            try connection.export(path: device.path, interface: "org.gtk.Actions", introspectionXML: actionsXML) { call in
                let parameter = call.arguments.at(1)?.array?.first?.variant?.string ?? ""
                let record: [String: Any] = ["device": device.path, "action": call.arguments.at(0)?.string ?? "",
                                             "parameter": parameter]
                if let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]),
                   let handle = FileHandle(forWritingAtPath: log) {
                    handle.seekToEndOfFile()
                    handle.write(data + Data("\n".utf8))
                    try? handle.close()
                }
                call.reply()
            }
        }
    } catch {
        return 1
    }
    let loop = g_main_loop_new(nil, 0)
    connection.ownName(flavor.busName, acquired: { report("phone service ready") }, lost: { g_main_loop_quit(loop) })
    MainQueueBridge.install()
    g_main_loop_run(loop)
    return 0
}
