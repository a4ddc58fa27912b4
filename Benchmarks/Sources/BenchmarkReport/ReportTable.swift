import BenchmarkFigures
import Foundation

/// The printed table: one row per figure, its figures beside its targets, and the verdicts.
struct ReportTable {
    /// Column widths: #, benchmark, median, min, cpu, time target, result, mallocs/op,
    /// allocation target, result, samples; the notes follow.
    private static let widths = [3, 46, 10, 10, 10, 9, 6, 10, 6, 6, 7]
    private static let rightAligned: Set<Int> = [2, 3, 4, 7, 10]

    /// Every judged figure so far, with whether it met its target.
    private(set) var verdicts: [(figure: String, passed: Bool)] = []

    func header() {
        emit(Self.line(["#", "benchmark", "median", "min", "cpu", "target", "result",
                        "mallocs/op", "target", "result", "samples"], note: "notes"))
        emit(String(repeating: "-", count: Self.widths.reduce(0, +) + 2 * Self.widths.count + 30))
    }

    func section(_ title: String) {
        emit("")
        emit(title)
    }

    /// Prints `figure` as `measured`, judging it against its targets.
    mutating func row(_ figure: Figure, _ measured: MeasuredFigure, note: String) {
        var cells = [figure.id, figure.title,
                     Self.format(measured.median, figure.unit), Self.format(measured.minimum, figure.unit),
                     measured.cpu.map { Self.format($0, figure.unit) } ?? "-"]
        if let target = figure.timeTarget {
            let passed = measured.median < target.limitNanoseconds
            cells += [target.label, passed ? "PASS" : "MISS"]
            verdicts.append(("\(figure.id) \(figure.title)", passed))
        } else {
            cells += ["-", "-"]
        }
        cells.append(Self.formatCount(measured.mallocsPerOperation))
        if let target = figure.allocationTarget {
            // Judged on the sample that allocated most: one allocation anywhere is a MISS.
            let passed = measured.mostMallocsPerOperation <= Double(target)
            cells += [String(target), passed ? "PASS" : "MISS"]
            verdicts.append(("\(figure.id) \(figure.title): mallocs", passed))
        } else {
            cells += ["-", "-"]
        }
        cells.append(String(measured.samples))
        emit(Self.line(cells, note: note))
    }

    /// Prints a row for a figure the run did not measure.
    func missing(_ figure: Figure) {
        emit(Self.line([figure.id, figure.title, "not run"], note: ""))
    }

    /// Prints a free-form line under the table's columns.
    func remark(_ text: String) {
        emit(String(repeating: " ", count: Self.widths[0] + 2) + text)
    }

    private static func line(_ cells: [String], note: String) -> String {
        var out = ""
        for (index, cell) in cells.enumerated() {
            let gap = String(repeating: " ", count: max(0, widths[index] - cell.count))
            out += (rightAligned.contains(index) ? gap + cell : cell + gap) + "  "
        }
        return (out + note).trimmingCharacters(in: .whitespaces)
    }

    /// Nanoseconds in the figure's unit.
    static func format(_ nanoseconds: Double, _ unit: TimeUnit) -> String {
        switch unit {
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

    /// A count per operation: exact when whole, three digits otherwise, so that one malloc in
    /// a thousand operations still shows.
    static func formatCount(_ value: Double) -> String {
        if value == value.rounded() || value >= 100 { return String(format: "%.0f", value) }
        return String(format: "%.3g", value)
    }
}

/// Prints a line at once, even through a pipe.
func emit(_ text: String) {
    print(text)
    fflush(nil)  // all C streams
}
