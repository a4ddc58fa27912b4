/// The continuations callers started with `Continue` and have not had answered yet, so that
/// the caller may cancel its own (`CancelContinue`: the Baton app's Cancel beside
/// "Continuing…"). One caller cannot cancel another's.
@MainActor
final class ContinueCalls {
    private struct Key: Hashable {
        let caller: String
        let offerID: String
    }

    private var running: [Key: (number: Int, task: Task<Void, Never>)] = [:]
    private var nextNumber = 0

    /// Runs `work` (the continuation and the reply to `caller`) as a task `caller` may cancel
    /// by `offerID`; a second Continue of the same offer by the same caller takes its place.
    func run(caller: String, offerID: String, _ work: @escaping @MainActor () async -> Void) {
        let key = Key(caller: caller, offerID: offerID)
        nextNumber += 1
        let number = nextNumber
        let task = Task { @MainActor in
            await work()
            if self.running[key]?.number == number { self.running[key] = nil }
        }
        // A second Continue of the same offer by the same caller takes the place of the first,
        // which would otherwise go on where Cancel cannot reach it.
        running.updateValue((number, task), forKey: key)?.task.cancel()
    }

    /// Cancels `caller`'s continuation of `offerID`; `false` when it has none under way.
    func cancel(caller: String, offerID: String) -> Bool {
        guard let entry = running.removeValue(forKey: Key(caller: caller, offerID: offerID)) else { return false }
        entry.task.cancel()
        return true
    }
}
