import BenchmarkFigures

// Baton's core benchmarks on ordo-one/benchmark: the cost of a needsSave mark, of an update
// pass, of an election and of encoding a payload, each with its allocations. One benchmark
// per figure of `Figures`; `BenchmarkReport` prints them beside their targets.
//
//     swift package --package-path Benchmarks benchmark --target BatonBenchmarks

/// Registers every core benchmark; ordo-one's generated `main` calls it.
let benchmarks: @Sendable () -> Void = {
    registerEmptySample()
    registerRepeatedMarks()
    for count in Figures.firstMarkCounts {
        registerFirstMarks(count: count)
    }
    for count in Figures.passSizes {
        registerUpdatePass(activities: count)
    }
    for count in Figures.passSizes {
        registerUpdatePass(owners: count)
    }
    registerElection(Figures.electionScheduling, depth: 0)
    for depth in Figures.electionDepths {
        registerElection(Figures.election(depth: depth), depth: depth)
    }
    registerEncoding()
    registerDecoding()
}
