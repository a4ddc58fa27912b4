/// An example app that could not read its own files (its Info.plist): what the person is
/// told, in words for them; the technical reason goes to the log.
public struct AppSetupError: Error, CustomStringConvertible {
    /// The app's name as people know it ("Text Editor").
    public let appName: String
    /// What the app cannot do without its files ("open documents").
    public let consequence: String
    /// The technical reason, for the log.
    public let underlying: any Error

    public init(appName: String, cannot consequence: String, because underlying: any Error) {
        self.appName = appName
        self.consequence = consequence
        self.underlying = underlying
    }

    public var description: String {
        "Some of \(appName)’s own files are missing or damaged, so it cannot \(consequence). Installing \(appName) again should fix this."
    }
}
