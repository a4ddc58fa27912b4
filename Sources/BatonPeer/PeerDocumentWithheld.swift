import BatonBus
import BatonGLib

/// Why the origin did not describe (and so will not send) the file a fetched activity names:
/// carried beside the payload (``PeerMessage/payload(request:bytes:document:withheld:)``) so
/// the continuing device can tell its person why the continuation fails.
///
/// Never names the file, nor where it lies: only what kind of reason it is, and for
/// ``undeclaredType(_:)`` the MIME type the origin's desktop gave the file. A reason a newer
/// peer sends that this build does not know reads as ``unknown``.
public enum PeerDocumentWithheld: Hashable, Sendable {
    /// The origin's app is not verified for the activity's type.
    case notVerified
    /// It is not a regular file the app can read (gone, a folder, a FIFO, out of its sandbox).
    case unreadable
    /// It is larger than ``PeerDocument/maximumSize``.
    case tooLarge
    /// Its name cannot be sent (``PeerDocument/isFileName(_:)``).
    case unsendableName
    /// A recent document outside the visible folders of the origin's home.
    case outsideHome
    /// The receiving device's own continuation opened it on the origin, and it has not changed
    /// since: the receiver has it already.
    case openedByThisDevice
    /// Its app's desktop entry does not declare this MIME type (the one the origin's desktop
    /// gives the file) for the activity's type (`X-Baton-DocumentTypes`).
    case undeclaredType(String)
    /// A reason from a newer peer.
    case unknown

    /// The reason codes on the wire, by case.
    private enum Code: String {
        case notVerified = "not-verified", unreadable, tooLarge = "too-large", unsendableName = "unsendable-name",
             outsideHome = "outside-home", openedByThisDevice = "opened-by-this-device", undeclaredType = "undeclared-type"
    }

    private var code: Code? {
        switch self {
        case .notVerified: .notVerified
        case .unreadable: .unreadable
        case .tooLarge: .tooLarge
        case .unsendableName: .unsendableName
        case .outsideHome: .outsideHome
        case .openedByThisDevice: .openedByThisDevice
        case .undeclaredType: .undeclaredType
        case .unknown: nil
        }
    }

    /// The MIME types a desktop gives a file whose type it does not know: those of a custom
    /// extension without a shared-mime-info definition.
    public static let fallbackMIMETypes: Set<String> = ["text/plain", "application/octet-stream", "application/x-zerosize"]

    /// The reason as a clause for a person, after "‹device› did not send the file its
    /// activity names: ".
    public var explanation: String {
        switch self {
        case .notVerified: "the app there is not verified for this kind of activity"
        case .unreadable: "it is not a file the app there can read"
        case .tooLarge: "it is larger than \(PeerDocument.maximumSize >> 20) MiB"
        case .unsendableName: "its name cannot be sent"
        case .outsideHome: "it is not in a visible folder of the home folder there"
        case .openedByThisDevice: "this device's own continuation opened it there, and it has not changed since"
        case .undeclaredType(let mimeType) where Self.fallbackMIMETypes.contains(mimeType):
            "its type there, \(mimeType), is not one the app declares for this activity — "
                + "the app needs a shared-mime-info definition for its file extension"
        case .undeclaredType(let mimeType): "its type there, \(mimeType), is not one the app declares for this activity"
        case .unknown: "for a reason this version of Baton does not know"
        }
    }

    /// The record of a `payload` message's `document-withheld` field: a `reason` code, and the
    /// `mime-type` of an undeclared type.
    var record: [String: BusValue] {
        var record: [String: BusValue] = ["reason": .string(code?.rawValue ?? "unknown")]
        if case .undeclaredType(let mimeType) = self { record["mime-type"] = .string(mimeType) }
        return record
    }

    /// Reads a `document-withheld` record: a reason code it does not know is ``unknown``.
    ///
    /// - Throws: ``PeerProtocolError`` when `reason` is not text, or an undeclared type's
    ///   `mime-type` is not `TYPE/SUBTYPE` (``PeerDocument/isMIMEType(_:)``).
    init(record: [String: BusValue]) throws {
        guard let reason = record["reason"]?.string else {
            throw PeerProtocolError("payload message: the withheld document's \"reason\" must be text")
        }
        switch Code(rawValue: reason) {
        case .notVerified: self = .notVerified
        case .unreadable: self = .unreadable
        case .tooLarge: self = .tooLarge
        case .unsendableName: self = .unsendableName
        case .outsideHome: self = .outsideHome
        case .openedByThisDevice: self = .openedByThisDevice
        case .undeclaredType:
            guard let mimeType = record["mime-type"]?.string, PeerDocument.isMIMEType(mimeType) else {
                throw PeerProtocolError("payload message: the withheld document's \"mime-type\" must be TYPE/SUBTYPE")
            }
            self = .undeclaredType(mimeType)
        case nil: self = .unknown
        }
    }
}
