/// What `BenchmarkReport` was asked to do.
struct Options {
    static let usage = """
        usage: BenchmarkReport [--package-path PATH] [--results FILE] [-- OPTIONS...]

          --package-path PATH  the benchmark package (default: .)
          --results FILE       print the report of an earlier run's JMH export, without running
          -- OPTIONS...        passed on to `swift package benchmark`, e.g. -- --filter '3 .*'
        """

    /// A command line that does not parse.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    var packagePath = "."
    var resultsFile: String?
    var benchmarkArguments: [String] = []

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--package-path":
                guard let value = remaining.popFirst() else { throw Invalid(description: "--package-path needs a path") }
                packagePath = value
            case "--results":
                guard let value = remaining.popFirst() else { throw Invalid(description: "--results needs a file") }
                resultsFile = value
            case "--":
                benchmarkArguments = Array(remaining)
                remaining = []
            default:
                throw Invalid(description: "unknown argument \(argument)")
            }
        }
    }
}
