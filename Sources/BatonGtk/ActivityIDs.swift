import Baton
import Foundation

/// Opaque ids for the app's activities, as the service knows them; held weakly.
@MainActor
final class ActivityIDs {
    private struct Entry {
        weak var activity: UserActivity?
        let id: String
    }

    private var byObject: [ObjectIdentifier: Entry] = [:]

    /// The activity's id, made on first use.
    func id(for activity: UserActivity) -> String {
        let key = ObjectIdentifier(activity)
        if let entry = byObject[key], entry.activity === activity { return entry.id }
        byObject = byObject.filter { $0.value.activity != nil }
        let id = UUID().uuidString.lowercased()
        byObject[key] = Entry(activity: activity, id: id)
        return id
    }

    /// The live activity with this id.
    func activity(for id: String) -> UserActivity? {
        byObject.values.first { $0.id == id }?.activity
    }
}
