import Foundation

// The measuring harness: a monotonic clock, a checksum against dead-code elimination,
// calibrated repetitions, median and minimum, and the printed table.

// MARK: Clock

/// Monotonic nanoseconds (`DispatchTime` is `CLOCK_MONOTONIC` on Linux).
@inline(__always)
func nowNanoseconds() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// What one timed region costs with nothing in it: the price of one clock read.
/// Measured once at start-up; every timed region subtracts it.
nonisolated(unsafe) var clockOverheadNanoseconds: UInt64 = 0

/// Nanoseconds since `start`, less the clock's own overhead.
@inline(__always)
func elapsed(since start: UInt64) -> UInt64 {
    let raw = nowNanoseconds() &- start
    return raw > clockOverheadNanoseconds ? raw - clockOverheadNanoseconds : 0
}

/// Measures ``clockOverheadNanoseconds``: the median over a few runs of back-to-back reads.
func calibrateClock() {
    var perRead: [Double] = []
    for _ in 0..<11 {
        let reads = 200_000
        let start = nowNanoseconds()
        var last: UInt64 = 0
        for _ in 0..<reads { last = nowNanoseconds() }
        perRead.append(Double(last &- start) / Double(reads))
    }
    clockOverheadNanoseconds = UInt64(Stats(perRead).median.rounded())
}

// MARK: Keeping the work alive

/// Everything a benchmark computes is folded in here and printed at the end, so the
/// optimizer cannot prove the measured work useless.
nonisolated(unsafe) var checksum: UInt64 = 0

/// Folds a value into ``checksum``. Never inlined, so what it is given must be computed.
@inline(never)
func blackHole(_ value: Int) {
    checksum = checksum &* 31 &+ UInt64(truncatingIfNeeded: value)
}

/// Folds an object's identity into ``checksum``.
@inline(never)
func blackHole(_ object: AnyObject?) {
    let bits = object.map { UInt(bitPattern: ObjectIdentifier($0).hashValue) } ?? 0
    checksum = checksum &* 31 &+ UInt64(bits)
}

// MARK: Statistics

/// Per-operation times of several samples, in nanoseconds.
struct Stats {
    let samples: [Double]
    let median: Double
    let min: Double

    init(_ values: [Double]) {
        precondition(!values.isEmpty, "no samples")
        let sorted = values.sorted()
        samples = sorted
        min = sorted[0]
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

enum Settings {
    /// Samples per benchmark (odd, so the median is one sample).
    static let samples = 31
    /// Untimed samples run first, after calibration.
    static let warmUpSamples = 3
    /// How long the timed part of one sample should last.
    static let sampleNanoseconds: Double = 4_000_000
}

/// Runs a benchmark: `body(iterations)` performs `iterations` iterations of
/// `operationsPerIteration` operations each, and returns the nanoseconds of its timed region
/// (it times itself, so setup and draining stay outside). The iteration count is calibrated
/// so one sample lasts about ``Settings/sampleNanoseconds``; then come the warm-up samples,
/// then the measured ones. Returns nanoseconds per operation.
func measure(operationsPerIteration: Int = 1, _ body: (Int) -> UInt64) -> Stats {
    // Calibrate (doubles as the first warm-up).
    var iterations = 1
    var timed = body(iterations)
    while Double(timed) < Settings.sampleNanoseconds / 8, iterations < 1 << 30 {
        iterations *= 4
        timed = body(iterations)
    }
    let perIteration = max(Double(timed) / Double(iterations), 1)
    iterations = max(1, Int(Settings.sampleNanoseconds / perIteration))

    for _ in 0..<Settings.warmUpSamples { _ = body(iterations) }
    var perOperation: [Double] = []
    perOperation.reserveCapacity(Settings.samples)
    for _ in 0..<Settings.samples {
        let nanoseconds = body(iterations)
        perOperation.append(Double(nanoseconds) / Double(iterations * operationsPerIteration))
    }
    return Stats(perOperation)
}

// MARK: Table

enum Unit {
    case nanoseconds, microseconds

    func format(_ nanoseconds: Double) -> String {
        switch self {
        case .nanoseconds:
            return nanoseconds < 10 ? String(format: "%.2f ns", nanoseconds)
                : nanoseconds < 1000 ? String(format: "%.1f ns", nanoseconds)
                : String(format: "%.0f ns", nanoseconds)
        case .microseconds:
            let micro = nanoseconds / 1000
            return micro < 10 ? String(format: "%.3f µs", micro)
                : micro < 1000 ? String(format: "%.1f µs", micro)
                : String(format: "%.0f µs", micro)
        }
    }
}

/// A target a median must stay under.
struct Target {
    let limitNanoseconds: Double
    let label: String

    func verdict(_ median: Double) -> String { median < limitNanoseconds ? "PASS" : "MISS" }
}

enum Table {
    static let widths = [4, 54, 11, 11, 10, 6]

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let gap = max(0, width - text.count)
        let spaces = String(repeating: " ", count: gap)
        return right ? spaces + text : text + spaces
    }

    static func line(_ cells: [String], note: String = "") -> String {
        var out = ""
        for (index, cell) in cells.enumerated() {
            let right = index == 2 || index == 3
            out += pad(cell, widths[index], right: right) + (index == 0 ? "" : "  ")
        }
        return (out + note).trimmingCharacters(in: .whitespaces)
    }

    static func header() {
        emit(line(["#", "benchmark", "median", "min", "target", "result"], note: "notes"))
        emit(String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1) + 30))
    }

    static func section(_ title: String) {
        emit("")
        emit(title)
    }

    /// Prints one row; returns the verdict, or nil when the row has no target.
    @discardableResult
    static func row(_ id: String, _ name: String, _ stats: Stats, unit: Unit,
                    target: Target? = nil, note: String = "") -> String? {
        let verdict = target?.verdict(stats.median)
        emit(line([id, name, unit.format(stats.median), unit.format(stats.min),
                   target?.label ?? "-", verdict ?? "-"], note: note))
        if let verdict { verdicts.append((id + " " + name, verdict)) }
        return verdict
    }

    /// Prints a free-form line under the table's columns.
    static func remark(_ text: String) {
        emit(String(repeating: " ", count: widths[0]) + text)
    }

    nonisolated(unsafe) static var verdicts: [(String, String)] = []

    static func emit(_ text: String) {
        print(text)
        fflush(nil)  // all C streams: progress shows even through a pipe
    }
}

/// Integers with thin spaces between thousands, for counts in the table: 10 000.
func grouped(_ value: Int) -> String {
    let digits = String(value)
    var out = ""
    for (index, character) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { out += " " }
        out.append(character)
    }
    return out
}
