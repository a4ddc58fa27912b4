import Foundation
import ServiceFixtures
import XCTest

/// An office LAN: twenty devices on one /24 (network namespaces on one bridge), each with its
/// own avahi-daemon and batond, finding each other through DNS-SD alone. Each lists all the
/// others from their records, without a link to any; two pair and hand a draft over; the fleet
/// at rest costs next to no CPU; a device renamed is listed by its new name; a device that stops
/// drops out of the others' lists with its DNS-SD goodbye. Needs root (and runs in CI, which is root); skipped elsewhere.
final class OfficeNetworkTests: XCTestCase {
    private var office: OfficeNetwork?
    private var sessions: [ServiceSession] = []

    private static let count = 20
    /// The device renamed: it takes its name from its settings, not `--name`, which fixes it.
    private static let renamed = 3

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
        try XCTSkipUnless(hasDisplay, "no display: run under xvfb-run")
        if let missing = OfficeNetwork.missingRequirement { throw XCTSkip(missing) }
        do {
            office = try OfficeNetwork(count: Self.count)
        } catch {
            throw XCTSkip("this machine cannot make the namespaces: \(error)")
        }
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false { sessions.prefix(2).forEach { $0.printLogs() } }
        sessions.forEach { $0.tearDown() }
        office?.remove()
    }

    private static func name(_ number: Int) -> String { String(format: "desk%02d", number) }

    /// The names device `number` lists, from `baton devices`.
    private func listed(by number: Int) throws -> Set<String> {
        let records = try sessions[number - 1].baton(["devices", "--json"]).json as? [[String: Any]] ?? []
        return Set(records.compactMap { $0["name"] as? String })
    }

    /// CPU seconds (user and system) `pid` used so far, from /proc/PID/stat.
    private static func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return 0 }
        // After the command's ")": state is field 3, utime field 14, stime field 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Anonymous resident memory of `pid` (its own heap, not shared libraries) in KiB, from /proc/PID/status.
    private static func residentKiB(of pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    func testTwentyDevicesOnOneNetworkListEachOtherPairAndLeave() throws {
        let office = try XCTUnwrap(office)
        var batonds: [ChildProcess] = []
        for number in 1...Self.count {
            let session = try ServiceSession()
            sessions.append(session)
            try session.startBus()
        }
        let configuration = sessions[Self.renamed - 1].root.appendingPathComponent("config/baton")
        try FileManager.default.createDirectory(at: configuration, withIntermediateDirectories: true)
        try "[network]\nname=\(Self.name(Self.renamed))\n".write(to: configuration.appendingPathComponent("batond.conf"),
                                                                  atomically: true, encoding: .utf8)
        let started = Date()
        for number in 1...Self.count {
            let name = number == Self.renamed ? [] : ["--name", Self.name(number)]
            batonds.append(try sessions[number - 1].startBatond(
                name, name: "batond", namespace: office.namespace(number),
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": office.systemBus(number)]))
        }
        let allStarted = Date()

        // Each lists the other nineteen, from their DNS-SD records.
        var listedAt: [Int: Double] = [:]
        var lastCounts: [Int: Int] = [:]
        while listedAt.count < Self.count, Date().timeIntervalSince(allStarted) < 30 {
            for number in 1...Self.count where listedAt[number] == nil {
                let others = Set((1...Self.count).filter { $0 != number }.map(Self.name))
                let names = try listed(by: number)
                lastCounts[number] = names.intersection(others).count
                if others.isSubset(of: names) { listedAt[number] = Date().timeIntervalSince(allStarted) }
            }
        }
        let slowest = listedAt.values.max() ?? .infinity
        print("office: \(Self.count) batonds started in \(String(format: "%.1f", allStarted.timeIntervalSince(started))) s; "
              + "each listed all \(Self.count - 1) others \(String(format: "%.1f", slowest)) s after the last started at the latest "
              + "(\(listedAt.count) of \(Self.count) did; counts listed: \((1...Self.count).map { lastCounts[$0] ?? 0 }))")
        XCTAssertEqual(listedAt.count, Self.count, "devices that listed all the others")
        XCTAssertLessThan(slowest, 10, "every device lists all the others within 10 s")

        // Listed from the records: no device holds a link to a stranger.
        let records = try sessions[0].baton(["devices", "--json"]).json as? [[String: Any]] ?? []
        XCTAssertEqual(records.filter { $0["connected"] as? Bool == true }.count, 0, "\(records)")
        let two = try XCTUnwrap(records.first { $0["name"] as? String == Self.name(2) })
        XCTAssertTrue((two["address"] as? String ?? "").hasPrefix("\(office.address(2)):"), "\(two)")

        // The fleet at rest.
        let pids = batonds.map(\.pid)
        let before = pids.map(Self.cpuSeconds(of:))
        let window = 20.0
        Thread.sleep(forTimeInterval: window)
        let used = zip(pids.map(Self.cpuSeconds(of:)), before).map { $0 - $1 }.reduce(0, +)
        let share = used / window * 100
        let resident = pids.map(Self.residentKiB(of:)).reduce(0, +)
        print("office: the \(Self.count) batonds at rest used \(String(format: "%.2f", used)) CPU seconds in \(Int(window)) s: "
              + "\(String(format: "%.2f", share)) % of one core in all; anonymous memory \(resident / 1024) MiB in all")
        XCTAssertLessThan(share, 1, "the fleet at rest uses under 1 % of one core")

        // Two of them pair, the one dialing the other only now, and hand a draft over.
        let (a, b) = (sessions[0], sessions[1])
        let request = try b.baton(["pair", Self.name(1)])
        XCTAssertEqual(request.status, 0, request.errorOutput)
        let code = try XCTUnwrap(request.output.split(separator: "\n").first { $0.hasPrefix("Verification code: ") }?
            .dropFirst("Verification code: ".count)).description
        var codeA: String?
        XCTAssertTrue(waitUntil {
            codeA = (try a.baton(["devices", "--json"]).json as? [[String: Any]] ?? [])
                .lazy.compactMap { $0["pairing-code"] as? String }.first
            return codeA != nil
        }, "A shows its own code")
        XCTAssertEqual(try a.baton(["pair", "--confirm", Self.name(2), code]).status, 0)
        XCTAssertEqual(try b.baton(["pair", "--confirm", Self.name(1), XCTUnwrap(codeA)]).status, 0)

        let trace = b.root.appendingPathComponent("target.trace.jsonl")
        try b.installTestAppEntry(id: "org.baton.Target")
        _ = try a.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "office draft"], name: "origin",
                        environment: ["BATON_TRACE": a.root.appendingPathComponent("origin.trace.jsonl").path])
        _ = try b.start(ServiceSession.product("BatonTestApp"), ["app", "--text", "idle", "--app-id", "org.baton.Target"],
                        name: "target", environment: ["BATON_TRACE": trace.path])
        XCTAssertNotNil(b.waitForActivity(titled: "Note: idle"), "the target app registered on B")
        let id = try XCTUnwrap(b.waitForActivity(titled: "Note: office draft", timeout: 15)?["id"] as? String)
        let result = try b.baton(["continue", id])
        XCTAssertEqual(result.status, 0, result.errorOutput)
        XCTAssertTrue(waitUntil {
            TraceFile.events(at: trace).contains {
                $0["event"] as? String == "restored"
                    && ($0["userInfo"] as? [String: Any])?["text"] as? String == "office draft"
            }
        }, "the draft was handed over")

        // A device renamed announces its new name: the others list it by that name.
        let renaming = try sessions[Self.renamed - 1].baton(["settings", "name", "Reception desk"])
        XCTAssertEqual(renaming.status, 0, renaming.errorOutput)
        let renamedAt = Date()
        let watching = (1...Self.count).filter { $0 != Self.renamed }
        var renamedIn: [Int: Double] = [:]
        while renamedIn.count < watching.count, Date().timeIntervalSince(renamedAt) < 20 {
            for number in watching where renamedIn[number] == nil {
                let names = try listed(by: number)
                if names.contains("Reception desk"), !names.contains(Self.name(Self.renamed)) {
                    renamedIn[number] = Date().timeIntervalSince(renamedAt)
                }
            }
        }
        print("office: \(Self.name(Self.renamed)) renamed; \(renamedIn.count) of \(watching.count) list its new name, "
              + "the last \(String(format: "%.1f", renamedIn.values.max() ?? .infinity)) s after")
        XCTAssertEqual(renamedIn.count, watching.count, "every other device lists the new name")

        // A device that stops says goodbye over DNS-SD: it drops out of the others' lists.
        let leaving = Self.count
        batonds[leaving - 1].stop()
        let stopped = Date()
        let stayed = Array(1..<leaving)
        var goneAt: [Int: Double] = [:]
        while goneAt.count < stayed.count, Date().timeIntervalSince(stopped) < 20 {
            for number in stayed where goneAt[number] == nil {
                if try !listed(by: number).contains(Self.name(leaving)) { goneAt[number] = Date().timeIntervalSince(stopped) }
            }
        }
        print("office: \(Self.name(leaving)) stopped; it dropped out of \(goneAt.count) of \(stayed.count) lists, "
              + "the last \(String(format: "%.1f", goneAt.values.max() ?? .infinity)) s after")
        XCTAssertEqual(goneAt.count, stayed.count, "every other device stopped listing the one that left")
        XCTAssertLessThan(goneAt.values.max() ?? .infinity, 5, "within a few seconds of its goodbye")
    }
}
