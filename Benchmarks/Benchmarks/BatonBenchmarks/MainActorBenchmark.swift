import Benchmark
import BenchmarkFigures
import Dispatch
import Foundation

// Baton lives on the main actor; ordo-one calls a benchmark's closure on a thread of its own
// while the main thread serves the main queue. So each sample hops to the main queue, and
// the hop stays outside the timed region.

/// The thread's CPU time over a sample's timed region, beside ordo-one's metrics.
let cpuTimeMetric = BenchmarkMetric.custom(CustomMetricName.cpuTime)

/// One sample of a core benchmark. Untimed setup and draining go around ``measure(_:)``.
@MainActor
struct Sample {
    let benchmark: Benchmark
    /// How many operations the timed region performs.
    let operations: Int

    /// Times `body`: wall clock and allocations (ordo-one's), and this thread's CPU time,
    /// read outside ordo-one's start and stop so the system calls stay off the wall clock
    /// (the report subtracts an empty sample's).
    func measure<Result>(_ body: () throws -> Result) rethrows -> Result {
        let cpuStart = threadCPUNanoseconds()
        benchmark.startMeasurement()
        defer {
            benchmark.stopMeasurement()
            benchmark.measurement(cpuTimeMetric, threadCPUNanoseconds() - cpuStart)
        }
        return try body()
    }

    /// Records a fact of the fixture, such as a payload size, as a custom metric.
    func record(_ name: String, _ value: Int) {
        benchmark.measurement(.custom(name, useScalingFactor: false), value)
    }
}

/// Holds a benchmark's fixture between samples; made by the first (warm-up) sample.
@MainActor
final class FixtureStore<Fixture> {
    var fixture: Fixture?

    nonisolated init() {}
}

/// Registers `figure` as an ordo-one benchmark whose samples run on the main actor.
///
/// `makeFixture` runs once, in the first warm-up sample; `sample` runs for every sample and
/// calls ``Sample/measure(_:)`` around exactly what the figure times. A thrown error fails
/// the benchmark, and so the run.
func register<Fixture>(
    _ figure: Figure,
    customMetrics: [String] = [],
    fixture makeFixture: @escaping @MainActor () throws -> Fixture,
    sample: @escaping @MainActor (Fixture, Sample) throws -> Void
) {
    let store = FixtureStore<Fixture>()
    Benchmark(figure.name, configuration: configuration(for: figure, customMetrics: customMetrics)) { benchmark in
        nonisolated(unsafe) let benchmark = benchmark
        onMainActor {
            do {
                let fixture = try store.fixture ?? makeFixture()
                store.fixture = fixture
                try sample(fixture, Sample(benchmark: benchmark, operations: figure.operationsPerSample))
            } catch {
                benchmark.error("\(figure.name): \(error)")
            }
        }
    }
}

/// Wall clock, allocations and CPU time, per operation in ordo-one's tables where the
/// operation count is a scaling factor it knows (1, 1 000, 1 000 000), per sample otherwise.
/// Throughput is there because ordo-one's JMH export, which the report reads, requires it.
private func configuration(for figure: Figure, customMetrics: [String]) -> Benchmark.Configuration {
    let custom = customMetrics.map { BenchmarkMetric.custom($0, useScalingFactor: false) }
    return Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal, cpuTimeMetric] + custom,
        units: [.mallocCountTotal: .count, cpuTimeMetric: .count],
        warmupIterations: Sampling.warmUpSamples,
        scalingFactor: BenchmarkScalingFactor(rawValue: figure.operationsPerSample) ?? .one,
        maxDuration: .seconds(Sampling.seconds),
        maxIterations: Sampling.maximumSamples
    )
}

/// Runs `body` on the main thread, as the main actor, and waits for it.
private func onMainActor(_ body: @MainActor () -> Void) {
    if Thread.isMainThread {
        MainActor.assumeIsolated(body)
    } else {
        DispatchQueue.main.sync { MainActor.assumeIsolated(body) }
    }
}

/// This thread's CPU time, in nanoseconds (a system call, not the vDSO: kept out of the
/// wall-clock region).
private func threadCPUNanoseconds() -> Int {
    var time = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}
