import Baton
import BatonBus
import BatonGLib
import Foundation

/// What the relay figures measure between two linked batonds, as `run` measures it between
/// two on loopback: offer propagation (PublishCurrent on A -> listed on B) and continuation
/// latency (Continue on B -> the app on B restored), `samples` of each after 3 unmeasured.
/// The apps are played anew on fresh bus connections: the batonds were restarted.
@MainActor
func measureHandoff(from a: Device, to b: Device) async throws -> (propagation: [Double], continuation: [Double], payloadSize: Int) {
    let busA = try BusConnection.bus(at: a.address)
    let busB = try BusConnection.bus(at: b.address)
    let origin = try await BenchApp(connection: busA, appID: "org.bench.Origin")
    try b.installEntry(for: "org.bench.Target", team: team, activityType: activityType)
    let target = try await BenchApp(connection: busB, appID: "org.bench.Target")
    let text = String(repeating: "A draft long enough to look like one. ", count: 40)
    origin.payload = Array(try UserActivityPayload(activityType: activityType, title: "bench",
                                                   userInfo: ["body": .string(text)]).encoded())

    var propagation: [Double] = []
    var listedOnB: String?
    for index in 0..<(samples + 3) {
        let title = "relayed \(index)"
        let start = Date()
        _ = try await daemonCall(busA, "PublishCurrent", [.string("doc-\(index)"),
                                                          .dictionary(["type": .string(activityType), "title": .string(title)])])
        try await waitFor("the offer on B", timeout: 5) {
            let listing = try await daemonCall(busB, "ListActivities").first?.dictionaries ?? []
            listedOnB = listing.first { $0["title"]?.string == title }?["id"]?.string
            return listedOnB != nil
        }
        if index >= 3 { propagation.append(Date().timeIntervalSince(start)) }
    }
    guard let offerID = listedOnB else { throw BenchmarkFailure("nothing listed on B") }

    var continuation: [Double] = []
    for index in 0..<(samples + 3) {
        let start = Date()
        _ = try await daemonCall(busB, "Continue", [.string(offerID)])
        if index >= 3 { continuation.append(Date().timeIntervalSince(start)) }
    }
    guard target.restored == samples + 3 else { throw BenchmarkFailure("the app on B restored \(target.restored) times") }
    return (propagation, continuation, origin.payload.count)
}
