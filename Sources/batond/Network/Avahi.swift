/// avahi-daemon's D-Bus names and constants (avahi-common/defs.h, dbus.h), for
/// ``AvahiDiscovery`` and ``PairedDeviceResolvers``.
enum Avahi {
    static let name = "org.freedesktop.Avahi"
    static let server = "org.freedesktop.Avahi.Server"
    static let entryGroup = "org.freedesktop.Avahi.EntryGroup"
    static let serviceBrowser = "org.freedesktop.Avahi.ServiceBrowser"
    static let serviceResolver = "org.freedesktop.Avahi.ServiceResolver"
    /// Seconds to wait for avahi-daemon's reply to a call.
    static let timeout = 10.0
    /// ResolveService waits for the network; avahi-daemon itself gives up after about 5 s.
    static let resolveTimeout = 20.0

    static let interfaceUnspecified: Int32 = -1
    static let protocolUnspecified: Int32 = -1
    static let protocolIPv4: Int32 = 0
    static let protocolIPv6: Int32 = 1
    /// AVAHI_LOOKUP_RESULT_OUR_OWN: announced by this D-Bus client.
    static let lookupResultOurOwn: UInt32 = 16

    static let serverRegistering: Int64 = 1
    static let serverRunning: Int64 = 2
    static let serverCollision: Int64 = 3
    static let entryGroupEstablished: Int64 = 2
    static let entryGroupCollision: Int64 = 3
    static let entryGroupFailure: Int64 = 4
}
