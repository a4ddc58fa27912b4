import BenchmarkFigures
import Foundation

// Runs Baton's core benchmarks on ordo-one/benchmark and prints every figure beside its
// target: wall clock (median, minimum), CPU time and mallocs, per operation, PASS or MISS.
// Exits non-zero only when the run itself fails; a MISS is reported, not fatal.
//
//     Benchmarks/.build/release/BenchmarkReport --package-path Benchmarks [-- --filter '3 .*']

let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n\(Options.usage)\n".utf8))
    exit(2)
}

let began = DispatchTime.now().uptimeNanoseconds
emit("Baton benchmarks")
emit("machine: nproc \(Machine.processorCount), CPU \(Machine.cpuModel), load average \(Machine.loadAverage)")

/// The run's results, and how busy other processes kept the machine meanwhile.
let results: Results
var interference: (others: Double, steal: Double)?
do {
    if let file = options.resultsFile {
        emit("results: \(file) (an earlier run)")
        results = try Results(contentsOf: URL(fileURLWithPath: file))
    } else {
        let quiet = Machine.CPUTimes.now()
        usleep(300_000)
        let before = Machine.CPUTimes.interference(since: quiet)
        emit(String(format: "         other processes just before the run: %.2f cores busy, %.2f stolen by the hypervisor",
                     before.others, before.steal))
        let run = BenchmarkRun(packagePath: options.packagePath, extraArguments: options.benchmarkArguments)
        emit("run:     " + run.arguments.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " "))
        emit("         (its output: \(run.logFile.path))")
        let start = Machine.CPUTimes.now()
        let exported = try run.run()
        interference = Machine.CPUTimes.interference(since: start)
        results = try Results(contentsOf: exported)
    }
} catch let failure as BenchmarkRun.Failure {
    FileHandle.standardError.write(Data("\(failure)\n".utf8))
    exit(failure.status)
} catch {
    FileHandle.standardError.write(Data("benchmark report failed: \(error)\n".utf8))
    exit(1)
}

emit("method:  ordo-one/benchmark, release build, mallocs counted by its malloc interposer; each benchmark:")
emit("         \(Sampling.warmUpSamples) warm-up samples, then samples for \(Sampling.seconds) s (at most \(Sampling.maximumSamples)), each timing a batch of operations;")
emit("         per operation: median and minimum of the wall clock, median of the thread's CPU time, mean of the mallocs;")
if let overhead = results.overhead {
    emit("         an empty sample's median (" + ReportTable.format(overhead.median, .nanoseconds) + " wall, "
         + (overhead.cpu.map { ReportTable.format($0, .nanoseconds) } ?? "-") + " CPU) is subtracted from every sample first;")
}
emit("         PASS when the median is under the time target, and when no sample allocated more than the allocation target.")
if let overhead = results.overhead, overhead.mostMallocsPerOperation > 0 {
    emit("WARNING: an empty sample allocated (\(ReportTable.formatCount(overhead.mostMallocsPerOperation)) at most): every malloc figure includes that")
}
emit("")

var table = ReportTable()
table.header()
var measuredCount = 0
let scheduling = results.measurement(of: Figures.electionScheduling)

for section in Figures.sections {
    var title = section.title
    if section.figures.contains(where: { $0.name == Figures.encode.name }),
       let facts = results.measurement(of: Figures.encode)?.facts,
       let payload = facts[CustomMetricName.payloadBytes], let userInfo = facts[CustomMetricName.userInfoBytes],
       let body = facts[CustomMetricName.bodyBytes] {
        title += String(format: ": %.0f bytes encoded (userInfo %.0f bytes, body text %.0f bytes)", payload, userInfo, body)
    }
    table.section(title)
    for figure in section.figures {
        guard let measured = results.measurement(of: figure) else {
            table.missing(figure)
            continue
        }
        measuredCount += 1
        table.row(figure, measured, note: note(for: figure, measured, scheduling: scheduling))
    }
    if section.figures.contains(where: { $0.name == Figures.electionScheduling.name }) {
        electionLinearity(in: results).map(table.remark)
    }
}

emit("")
if let interference {
    emit(String(format: "other processes during the run: %.2f cores busy, %.2f stolen by the hypervisor",
                interference.others, interference.steal)
         + (interference.others + interference.steal > 0.2
            ? " -- WARNING: figures may be inflated, run again on a quiet machine" : ""))
}
let missed = table.verdicts.filter { !$0.passed }
emit("figures: \(measuredCount) of \(Figures.sections.reduce(0) { $0 + $1.figures.count }) measured; "
     + "targets: \(table.verdicts.count - missed.count) of \(table.verdicts.count) PASS"
     + (missed.isEmpty ? "" : "; MISS: " + missed.map(\.figure).joined(separator: "; ")))
emit(String(format: "whole run %.1f s", Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9))

/// The notes column of `figure`'s row.
func note(for figure: Figure, _ measured: MeasuredFigure, scheduling: MeasuredFigure?) -> String {
    switch figure.note {
    case .none:
        return ""
    case .text(let text):
        return text
    case .per(let count, let noun):
        return String(format: "%.0f ns per ", measured.median / Double(count)) + noun
    case .perStep(let depth):
        let perStep = String(format: "%.1f ns/step", measured.median / Double(depth))
        guard let scheduling else { return perStep }
        return perStep + String(format: "; %.1f ns/step less scheduling", (measured.median - scheduling.median) / Double(depth))
    }
}

/// Whether an election's cost grows linearly with the chain's depth, judged on the minimums:
/// the least disturbed samples, so noise from other processes does not pass for non-linearity.
func electionLinearity(in results: Results) -> String? {
    let depths = Figures.electionDepths
    guard depths.count == 3 else { return nil }
    let minimums = depths.compactMap { results.measurement(of: Figures.election(depth: $0))?.minimum }
    guard minimums.count == 3 else { return nil }
    let slopeLow = (minimums[1] - minimums[0]) / Double(depths[1] - depths[0])
    let slopeHigh = (minimums[2] - minimums[1]) / Double(depths[2] - depths[1])
    let ratio = max(slopeLow, slopeHigh) / max(min(slopeLow, slopeHigh), 0.001)
    let verdict = ratio < 1.5 ? "linear in depth" : String(format: "NOT linear (ratio %.1f)", ratio)
    return String(format: "marginal cost per step (from minimums): %.1f ns (depth %d→%d), %.1f ns (%d→%d): ",
                  slopeLow, depths[0], depths[1], slopeHigh, depths[1], depths[2]) + verdict
}
