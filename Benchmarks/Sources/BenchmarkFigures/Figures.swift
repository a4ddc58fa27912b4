/// Every figure of the core benchmarks, with its target, in the order they are printed.
public enum Figures {
    static let markTarget = TimeTarget(limitNanoseconds: 50, label: "< 50 ns")
    static let passTarget = TimeTarget(limitNanoseconds: 1_000_000, label: "< 1 ms")
    static let electionTarget = TimeTarget(limitNanoseconds: 5_000, label: "< 5 µs")

    // MARK: 0. Measuring overhead

    /// A sample that times nothing: the cost of the measuring itself (clock reads, ordo-one's
    /// start and stop, the CPU-time reads), subtracted from every other figure's samples.
    public static let emptySample = Figure(
        id: "0", name: "0 empty sample", title: "empty sample: the measuring overhead",
        unit: .nanoseconds)

    // MARK: 1. needsSave marks

    /// `needsSave = true` on an activity that is already dirty: the flag check alone.
    public static let repeatedMarks = Figure(
        id: "1a", name: "1a repeated needsSave mark",
        title: "repeated marks on an already-dirty activity",
        operationsPerSample: 1_000_000, unit: .nanoseconds,
        timeTarget: markTarget, allocationTarget: 0, note: .text("flag check only"))

    /// How many clean activities the first-mark figures mark.
    public static let firstMarkCounts = [100, 1_000, 10_000]

    /// The first `needsSave = true` on each of `count` clean activities: the flag, the append
    /// to the center's queue and, once per batch, scheduling the turn.
    public static func firstMarks(_ count: Int) -> Figure {
        Figure(id: "1b", name: "1b first needsSave marks \(count)",
               title: "first mark of each of \(grouped(count)) clean activities",
               operationsPerSample: count, unit: .nanoseconds, timeTarget: markTarget,
               note: .text("flag + enqueue; one turn scheduled per batch"))
    }

    // MARK: 2. Update passes

    /// How many activities, or owners, the update-pass figures use.
    public static let passSizes = [1, 10, 100, 1_000]

    /// One pass over `count` dirty activities, each with one owner.
    public static func passOverActivities(_ count: Int) -> Figure {
        Figure(id: "2a", name: "2a update pass \(count) activities",
               title: "\(grouped(count)) activit\(count == 1 ? "y" : "ies"), one owner each",
               unit: .microseconds, timeTarget: count == 1_000 ? passTarget : nil,
               note: .per(count: count, noun: "activity"))
    }

    /// One pass over one dirty activity with `count` owners.
    public static func passOverOwners(_ count: Int) -> Figure {
        Figure(id: "2b", name: "2b update pass \(count) owners",
               title: "1 activity, \(grouped(count)) owner\(count == 1 ? "" : "s")",
               unit: .microseconds, timeTarget: count == 1_000 ? passTarget : nil,
               note: .per(count: count, noun: "owner"))
    }

    // MARK: 3. Elections

    /// An election with no main window: it returns at once, leaving the scheduling overhead.
    public static let electionScheduling = Figure(
        id: "3", name: "3 election scheduling only",
        title: "scheduling only (no main window, no walk)",
        operationsPerSample: 1_000, unit: .microseconds, allocationTarget: 0,
        note: .text("turn scheduling + ManualScheduler; included in the rows below"))

    /// The chain depths of the election figures.
    public static let electionDepths = [10, 100, 1_000]

    /// An election walking a chain `depth` responders long to the activity at its far end.
    public static func election(depth: Int) -> Figure {
        Figure(id: "3", name: "3 election depth \(depth)", title: "chain depth \(grouped(depth))",
               operationsPerSample: 1_000, unit: .microseconds,
               timeTarget: depth == 100 ? electionTarget : nil, allocationTarget: 0,
               note: .perStep(depth: depth))
    }

    // MARK: 4. Encoding

    /// Encoding the mail draft's payload.
    public static let encode = Figure(
        id: "4", name: "4 payload encode", title: "encode: activity.payload.encoded()",
        operationsPerSample: 1_000, unit: .microseconds)

    /// Decoding the mail draft's payload.
    public static let decode = Figure(
        id: "4", name: "4 payload decode", title: "decode: UserActivityPayload(decoding:)",
        operationsPerSample: 1_000, unit: .microseconds, note: .text("round trip checked equal"))

    // MARK: Table

    /// The printed table, section by section.
    public static let sections: [Section] = [
        Section(title: "1. needsSave = true: cost per mark",
                figures: [repeatedMarks] + firstMarkCounts.map(firstMarks)),
        Section(title: "2. update pass: scheduler.runUntilIdle() after marking, per pass; each owner writes subject, body, cursor",
                figures: passSizes.map(passOverActivities) + passSizes.map(passOverOwners)),
        Section(title: "3. election: setNeedsElection() + runUntilIdle(), activity on the last responder (far end of the walk)",
                figures: [electionScheduling] + electionDepths.map { election(depth: $0) }),
        Section(title: "4. mail draft payload",
                figures: [encode, decode]),
    ]

    /// Integers with spaces between thousands, for counts in titles: 10 000.
    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += " " }
            out.append(character)
        }
        return out
    }
}
