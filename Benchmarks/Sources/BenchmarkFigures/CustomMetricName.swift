/// The custom metrics the core benchmarks record beside ordo-one's own, by name.
public enum CustomMetricName {
    /// The CPU time of the thread running a sample's timed region, in nanoseconds.
    public static let cpuTime = "CPU time (ns)"
    /// The encoded mail draft payload, in bytes.
    public static let payloadBytes = "Payload size (bytes)"
    /// The encoded `userInfo` of the mail draft, in bytes.
    public static let userInfoBytes = "Payload userInfo size (bytes)"
    /// The mail draft's body text, in UTF-8 bytes.
    public static let bodyBytes = "Draft body size (bytes)"
}
