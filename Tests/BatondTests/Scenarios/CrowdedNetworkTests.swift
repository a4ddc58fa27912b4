import Foundation
import ServiceFixtures
import XCTest

/// A person's own network with a dozen devices: twelve batonds on one /24 (127.0.2.1–12),
/// each given the other eleven as static peers, all started together. Each must list all its
/// neighbours, and still list them after 60 s, once the unpaired links have closed: static
/// peers are the person's own choice, so the places kept against a flood of strangers (per
/// address and network, and for devices seen) must not hold them back.
final class CrowdedNetworkTests: XCTestCase {
    private var sessions: [ServiceSession] = []

    override func setUpWithError() throws {
        if let missing = ServiceSession.missingRequirement { throw XCTSkip(missing) }
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false { sessions.first?.printLogs() }
        sessions.forEach { $0.tearDown() }
    }

    func testTwelveDevicesOnOneNetworkListTheirNeighbours() throws {
        let count = 12
        let port = Int.random(in: 41_000...47_000)
        let addresses = (1...count).map { "127.0.2.\($0):\(port)" }
        for index in 0..<count {
            let session = try ServiceSession()
            try session.startBus()
            sessions.append(session)
        }
        let started = Date()
        for (index, session) in sessions.enumerated() {
            let peers = addresses.enumerated().filter { $0.offset != index }.flatMap { ["--peer", $0.element] }
            try session.startBatond(["--listen", addresses[index], "--name", "device\(index + 1)"] + peers, name: "batond")
        }
        var listed = Array(repeating: 0, count: count)
        // When each batond first listed all its neighbours.
        var allListedAt: [Double?] = Array(repeating: nil, count: count)
        while Date().timeIntervalSince(started) < 60 {
            for (index, session) in sessions.enumerated() {
                listed[index] = try neighbours(listedBy: session)
                if allListedAt[index] == nil, listed[index] == count - 1 { allListedAt[index] = Date().timeIntervalSince(started) }
            }
            Thread.sleep(forTimeInterval: 2)
        }
        listed = try sessions.map(neighbours(listedBy:))
        let latest = allListedAt.compactMap { $0 }.max()
        print("crowded network: after 60 s, each of \(count) batonds lists \(listed) of its \(count - 1) neighbours; "
              + "each listed all of them by \(latest.map { String(format: "%.1f s", $0) } ?? "never")")
        XCTAssertTrue(allListedAt.allSatisfy { $0 != nil }, "every batond listed all its neighbours: \(allListedAt)")
        XCTAssertEqual(listed, Array(repeating: count - 1, count: count), "every batond still lists all its neighbours after 60 s")
    }

    private func neighbours(listedBy session: ServiceSession) throws -> Int {
        let devices = try session.baton(["devices", "--json"]).json as? [[String: Any]] ?? []
        return devices.filter { ($0["name"] as? String)?.hasPrefix("device") == true }.count
    }
}
