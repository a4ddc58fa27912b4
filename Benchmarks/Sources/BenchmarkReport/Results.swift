import BenchmarkFigures
import Foundation

/// One figure as measured, per operation, from ordo-one's JMH export.
struct MeasuredFigure {
    /// How many samples were taken.
    let samples: Int
    /// Wall clock, nanoseconds per operation: median and minimum over the samples.
    let median: Double
    let minimum: Double
    /// The thread's CPU time, nanoseconds per operation: median over the samples.
    let cpu: Double?
    /// Mallocs per operation: the mean over the samples, and the most of any one sample.
    let mallocsPerOperation: Double
    let mostMallocsPerOperation: Double
    /// Custom metrics' medians, by name: facts such as a payload's size.
    let facts: [String: Double]
}

/// ordo-one's JMH export of a run, by benchmark name.
///
/// Every figure but ``BenchmarkFigures/Figures/emptySample`` has the empty sample's median
/// (the measuring overhead: clock reads, ordo-one's hooks, the CPU-time reads) subtracted
/// from each of its samples before it is divided by the sample's operations.
struct Results {
    /// The parts of a JMH element the report reads.
    private struct Element: Decodable {
        let benchmark: String
        let measurementIterations: Int
        let secondaryMetrics: [String: Metric]
    }

    /// One metric of an element. Times are in microseconds, counts as counted; either is
    /// the raw value of a whole sample, not divided by its operations.
    private struct Metric: Decodable {
        let score: Double
        let scorePercentiles: [String: Double]

        func percentile(_ value: Double) -> Double? { scorePercentiles[String(value)] }
    }

    /// ordo-one's names of the metrics read here.
    private enum MetricName {
        static let wallClock = "Time (wall clock)"
        static let mallocs = "Malloc (total)"
    }

    private let elements: [String: Element]
    /// The empty sample, as measured: what is subtracted.
    private(set) var overhead: MeasuredFigure?

    init(contentsOf url: URL) throws {
        let decoded = try JSONDecoder().decode([Element].self, from: Data(contentsOf: url))
        let prefix = "package.benchmark.\(BenchmarkRun.target)."
        var elements: [String: Element] = [:]
        for element in decoded where element.benchmark.hasPrefix(prefix) {
            elements[String(element.benchmark.dropFirst(prefix.count))] = element
        }
        self.elements = elements
        overhead = measurement(of: Figures.emptySample)
    }

    /// `figure` as measured, less the measuring overhead, or nil when the run did not include it.
    func measurement(of figure: Figure) -> MeasuredFigure? {
        // The export writes a name's spaces as underscores.
        guard let element = elements[figure.name.replacingOccurrences(of: " ", with: "_")],
              let wall = element.secondaryMetrics[MetricName.wallClock],
              let median = wall.percentile(50), let minimum = wall.percentile(0),
              let mallocs = element.secondaryMetrics[MetricName.mallocs],
              let mostMallocs = mallocs.percentile(100) else { return nil }
        let operations = Double(figure.operationsPerSample)
        let wallOverhead = figure.name == Figures.emptySample.name ? 0 : overhead?.median ?? 0
        let cpuOverhead = figure.name == Figures.emptySample.name ? 0 : overhead?.cpu ?? 0
        var facts: [String: Double] = [:]
        for name in [CustomMetricName.payloadBytes, CustomMetricName.userInfoBytes, CustomMetricName.bodyBytes] {
            facts[name] = element.secondaryMetrics[name]?.percentile(50)
        }
        return MeasuredFigure(
            samples: element.measurementIterations,
            median: max(0, median * 1_000 - wallOverhead) / operations,
            minimum: max(0, minimum * 1_000 - wallOverhead) / operations,
            cpu: element.secondaryMetrics[CustomMetricName.cpuTime]?.percentile(50).map { max(0, $0 - cpuOverhead) / operations },
            mallocsPerOperation: mallocs.score / operations,
            mostMallocsPerOperation: mostMallocs / operations,
            facts: facts)
    }
}
