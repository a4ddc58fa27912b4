import Baton
import BatonBus
import BatonGLib
import Foundation

/// The body of the draft the origin app saves: long enough to look like one.
let draftText = String(repeating: "A draft long enough to look like one. ", count: 40)

/// Two linked batonds' handoff, measured: the apps played on each (registered anew), the
/// offer B lists, and the times of offer propagation (PublishCurrent on A -> listed on B) and
/// continuation latency (Continue on B -> the app on B restored), `samples` of each after 3
/// unmeasured.
@MainActor
struct MeasuredHandoff {
    let origin: BenchApp
    let target: BenchApp
    let offerID: String
    let propagation: [Double]
    let continuation: [Double]
}

/// Registers the apps on A's and B's buses (B's verified for the type by an entry installed
/// on device `b`) and measures the handoff between them; offers are titled `prefix N`.
@MainActor
func measureHandoff(busA: BusConnection, busB: BusConnection, installingOn b: Device, titled prefix: String) async throws -> MeasuredHandoff {
    let origin = try await BenchApp(connection: busA, appID: "org.bench.Origin")
    try b.installEntry(for: "org.bench.Target", team: team, activityType: activityType)
    let target = try await BenchApp(connection: busB, appID: "org.bench.Target")
    origin.payload = Array(try UserActivityPayload(activityType: activityType, title: "bench",
                                                   userInfo: ["body": .string(draftText)]).encoded())

    var propagation: [Double] = []
    var listedOnB: String?
    for index in 0..<(samples + 3) {
        let title = "\(prefix) \(index)"
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
    return MeasuredHandoff(origin: origin, target: target, offerID: offerID, propagation: propagation, continuation: continuation)
}
