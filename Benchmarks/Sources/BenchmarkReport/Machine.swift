import Foundation

/// The machine the figures come from, and how busy other processes keep it.
enum Machine {
    static var processorCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    static var cpuModel: String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else {
            return "unknown"
        }
        for key in ["model name", "Model", "Hardware", "cpu model"] {
            for line in text.split(separator: "\n") where line.hasPrefix(key) {
                if let colon = line.firstIndex(of: ":") {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return "unknown"
    }

    static var loadAverage: String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else {
            return "unknown"
        }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// CPU time the whole machine spent busy, and in steal (taken by the hypervisor), from
    /// `/proc/stat`; with the CPU time of this process and of its children that have ended
    /// (the benchmark run), to tell how much else ran meanwhile.
    struct CPUTimes {
        var busySeconds = 0.0
        var stealSeconds = 0.0
        var ownSeconds = 0.0
        var wallNanoseconds: UInt64 = 0

        static func now() -> CPUTimes {
            var times = CPUTimes(wallNanoseconds: DispatchTime.now().uptimeNanoseconds)
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            if let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) {
                let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
                if fields.count >= 8 {
                    // user nice system idle iowait irq softirq steal
                    times.busySeconds = (fields[0] + fields[1] + fields[2] + fields[5] + fields[6]) / ticks
                    times.stealSeconds = fields[7] / ticks
                }
            }
            times.ownSeconds = seconds(of: RUSAGE_SELF.rawValue) + seconds(of: RUSAGE_CHILDREN.rawValue)
            return times
        }

        /// Cores' worth of other work, and of steal, between `start` and now.
        static func interference(since start: CPUTimes) -> (others: Double, steal: Double) {
            let end = now()
            let wall = Double(end.wallNanoseconds - start.wallNanoseconds) / 1e9
            guard wall > 0 else { return (0, 0) }
            let others = (end.busySeconds - start.busySeconds) - (end.ownSeconds - start.ownSeconds)
            return (max(0, others) / wall, max(0, end.stealSeconds - start.stealSeconds) / wall)
        }

        private static func seconds(of who: Int32) -> Double {
            var usage = rusage()
            guard getrusage(who, &usage) == 0 else { return 0 }
            let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
            return user + system
        }
    }
}
