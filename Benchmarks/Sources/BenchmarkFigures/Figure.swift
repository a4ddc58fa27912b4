/// One figure of the core benchmarks: the ordo-one benchmark that measures it, what one of
/// its samples does, and the targets it is held to.
///
/// `BatonBenchmarks` registers a benchmark per figure; `BenchmarkReport` reads the results
/// back by ``name`` and judges them, so both sides share this one description.
public struct Figure: Sendable {
    /// The group in the printed table, such as `1a`.
    public let id: String
    /// The ordo-one benchmark name; letters, digits and spaces only, so it survives export.
    public let name: String
    /// What the row of the printed table says.
    public let title: String
    /// How many operations one sample times: figures are per operation.
    public let operationsPerSample: Int
    /// How times are printed.
    public let unit: TimeUnit
    /// The median per operation must stay under this, if set.
    public let timeTarget: TimeTarget?
    /// No sample may allocate more than this many times per operation, if set.
    public let allocationTarget: Int?
    /// What the notes column adds.
    public let note: Note

    public init(id: String, name: String, title: String, operationsPerSample: Int = 1,
                unit: TimeUnit, timeTarget: TimeTarget? = nil, allocationTarget: Int? = nil,
                note: Note = .none) {
        self.id = id
        self.name = name
        self.title = title
        self.operationsPerSample = operationsPerSample
        self.unit = unit
        self.timeTarget = timeTarget
        self.allocationTarget = allocationTarget
        self.note = note
    }
}

/// The unit a figure's times are printed in.
public enum TimeUnit: Sendable {
    case nanoseconds, microseconds
}

/// A limit a median must stay under.
public struct TimeTarget: Sendable {
    public let limitNanoseconds: Double
    public let label: String

    public init(limitNanoseconds: Double, label: String) {
        self.limitNanoseconds = limitNanoseconds
        self.label = label
    }
}

/// What a row's notes column says beside its figures.
public enum Note: Sendable {
    case none
    /// Fixed text.
    case text(String)
    /// The median divided by `count`, as nanoseconds per `noun`.
    case per(count: Int, noun: String)
    /// Nanoseconds per step of a chain `depth` long, with and without the scheduling-only figure.
    case perStep(depth: Int)
}

/// A titled group of figures, printed together.
public struct Section: Sendable {
    public let title: String
    public let figures: [Figure]
}
