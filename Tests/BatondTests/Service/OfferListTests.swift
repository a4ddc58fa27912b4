@testable import batond
import BatonBus
import Foundation
import XCTest

/// Room in the offer list: one origin cannot take every place and crowd the others out.
@MainActor
final class OfferListTests: XCTestCase {
    private func offers(_ count: Int, from deviceID: String) -> [Offer] {
        (0..<count).map { index in
            Offer(id: "\(deviceID)x\(index)", summary: ActivitySummary(activityType: "org.example.note", title: "\(index)"),
                  appID: "org.example.Notes", teamID: "org.example", device: deviceID, origin: .peer(deviceID: deviceID))
        }
    }

    func testOneDeviceKeepsItsMostRecentOffersAndLeavesRoomForTheOthers() async {
        let list = OfferList()
        let flood = offers(64, from: "d1")
        let first = list.replace(from: "d1", with: flood)
        XCTAssertEqual(first.added.map(\.id), flood.prefix(16).map(\.id), "the first 16 of the list: the most recent")
        XCTAssertEqual(list.offers.count, 16)

        let second = list.replace(from: "d2", with: offers(10, from: "d2"))
        XCTAssertEqual(second.added.count, 10, "another device still has room")
        for device in ["d3", "d4", "d5"] { _ = list.replace(from: device, with: offers(16, from: device)) }
        XCTAssertEqual(list.offers.count, 64)
        XCTAssertEqual(list.offers.values.filter { $0.peerDeviceID == "d1" }.count, 16)

        // A newer list from d1 withdraws what falls out of its 16.
        let newer = offers(2, from: "d1new").map {
            Offer(id: $0.id, summary: $0.summary, appID: $0.appID, teamID: $0.teamID, device: "d1", origin: .peer(deviceID: "d1"))
        }
        let third = list.replace(from: "d1", with: newer + flood)
        XCTAssertEqual(Set(third.added.map(\.id)), Set(newer.map(\.id)))
        XCTAssertEqual(Set(third.withdrawn.map(\.id)), Set(flood[14..<16].map(\.id)))
        XCTAssertEqual(list.offers.values.filter { $0.peerDeviceID == "d1" }.count, 16)
    }

    func testOffersAddedOnThisDeviceHaveTheirOwnLimit() async throws {
        let list = OfferList()
        for index in 0..<16 {
            try list.add(Offer(id: "local\(index)", summary: ActivitySummary(activityType: "org.example.note"),
                               appID: nil, teamID: nil, device: "this device", origin: .held([])))
        }
        XCTAssertThrowsError(try list.add(Offer(id: "local16", summary: ActivitySummary(activityType: "org.example.note"),
                                                appID: nil, teamID: nil, device: "this device", origin: .held([])))) { error in
            XCTAssertTrue("\(error)".contains("at most 16"), "\(error)")
        }
        XCTAssertEqual(list.replace(from: "d1", with: offers(3, from: "d1")).added.count, 3, "paired devices keep room")
    }

    func testEveryOfferPassesOneCheckWhateverItsOrigin() async throws {
        let list = OfferList()
        var refused: [String] = []
        list.onRefused = { offer, _ in refused.append(offer.id) }
        let bad = Offer(id: "bad", summary: ActivitySummary(activityType: "org.example.note", title: "\u{202E}moc.elgoog"),
                        appID: nil, teamID: nil, device: "d1", origin: .peer(deviceID: "d1"))
        let good = offers(1, from: "d1")
        XCTAssertEqual(list.replace(from: "d1", with: [bad] + good).added.map(\.id), good.map(\.id), "a device's bad offer is left out")
        XCTAssertEqual(refused, ["bad"])
        for title in ["evil\u{1B}[31m", "csi \u{9B}2J", "a\u{2028}b", String(repeating: "x", count: 5000)] {
            XCTAssertThrowsError(try list.add(Offer(id: "held", summary: ActivitySummary(activityType: "org.example.note", title: title),
                                                    appID: nil, teamID: nil, device: "this device", origin: .held([]))))
        }
        XCTAssertThrowsError(try list.add(Offer(id: "held", summary: ActivitySummary(activityType: "org.example.note", title: "Fine"),
                                                appID: nil, teamID: nil, device: "Pix\u{202E}el", origin: .held([]))))
        XCTAssertEqual(list.offers.count, 1)
    }
}
