import BenchmarkFigures

// 0. The measuring overhead.

/// A sample whose timed region is empty: what measuring costs, for the report to subtract.
func registerEmptySample() {
    register(Figures.emptySample) {
        ()
    } sample: { _, sample in
        sample.measure {}
    }
}
