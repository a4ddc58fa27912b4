import BenchmarkFigures
import Foundation

/// One run of the core benchmarks through ordo-one's `swift package benchmark`, which
/// exports its results as JMH JSON (raw per-sample values, so nothing is rounded away).
struct BenchmarkRun {
    /// The run did not finish well: its exit status and the end of its log.
    struct Failure: Error, CustomStringConvertible {
        let status: Int32
        let log: String

        var description: String { "the benchmark run failed (exit status \(status)):\n\(log)" }
    }

    /// The ordo-one benchmark target of the core figures.
    static let target = "BatonBenchmarks"

    let packagePath: String
    let extraArguments: [String]

    /// Where the export and the run's log go: inside the package's build folder.
    var outputDirectory: URL {
        URL(fileURLWithPath: packagePath).appendingPathComponent(".build/benchmark-report")
    }

    var logFile: URL { outputDirectory.appendingPathComponent("run.log") }

    /// The command line that runs the benchmarks. A filtered run keeps the empty sample,
    /// whose overhead the other figures are reported without.
    var arguments: [String] {
        let keepEmptySample = extraArguments.contains("--filter") ? ["--filter", Figures.emptySample.name] : []
        return ["swift", "package", "--package-path", packagePath, "--allow-writing-to-package-directory",
                "benchmark", "run", "--target", Self.target, "--format", "jmh",
                "--path", outputDirectory.path, "--no-progress"] + extraArguments + keepEmptySample
    }

    /// Runs the benchmarks, with their output going to ``logFile``; returns the JMH export.
    func run() throws -> URL {
        let files = FileManager.default
        try? files.removeItem(at: outputDirectory)
        try files.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        guard files.createFile(atPath: logFile.path, contents: nil),
              let log = FileHandle(forWritingAtPath: logFile.path) else {
            throw Failure(status: 1, log: "cannot write \(logFile.path)")
        }
        defer { try? log.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        try process.run()
        process.waitUntilExit()

        let exported = (try? files.contentsOfDirectory(atPath: outputDirectory.path))?
            .first { $0.hasSuffix(".jmh.json") }
        guard process.terminationReason == .exit, process.terminationStatus == 0, let exported else {
            let status = process.terminationStatus == 0 ? 1 : process.terminationStatus
            throw Failure(status: status, log: tail(of: logFile, lines: 40))
        }
        return outputDirectory.appendingPathComponent(exported)
    }

    private func tail(of file: URL, lines: Int) -> String {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return "(no log)" }
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
