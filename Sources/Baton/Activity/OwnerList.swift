/// Something that can own a managed ``UserActivity``: a ``Responder`` or a ``Document``.
@MainActor
protocol ActivityOwner: AnyObject {
    func updateUserActivityState(_ userActivity: UserActivity)
    /// Documents are asked before responders in an update pass.
    var isDocument: Bool { get }
}

/// The owners of one activity, held weakly, in the order they took it.
@MainActor
struct OwnerList {
    private struct Entry {
        let id: ObjectIdentifier
        weak var owner: (any ActivityOwner)?
    }

    private var entries: [Entry] = []

    var isEmpty: Bool {
        entries.allSatisfy { $0.owner == nil }
    }

    mutating func add(_ owner: any ActivityOwner) {
        let id = ObjectIdentifier(owner)
        entries.removeAll { $0.id == id || $0.owner == nil }
        entries.append(Entry(id: id, owner: owner))
    }

    mutating func remove(_ id: ObjectIdentifier) {
        entries.removeAll { $0.id == id || $0.owner == nil }
    }

    /// The owners still alive: documents first, then responders, each in the order they came.
    func liveOwners() -> [any ActivityOwner] {
        var documents: [any ActivityOwner] = []
        var responders: [any ActivityOwner] = []
        for entry in entries {
            guard let owner = entry.owner else { continue }
            if owner.isDocument {
                documents.append(owner)
            } else {
                responders.append(owner)
            }
        }
        return documents.isEmpty ? responders : documents + responders
    }
}
