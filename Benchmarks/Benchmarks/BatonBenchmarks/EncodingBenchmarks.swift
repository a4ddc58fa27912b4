import Baton
import BatonTesting
import Benchmark
import BenchmarkFigures
import Foundation

// 4. Encoding the typical mail draft's payload, and decoding it.

/// The draft's activity and its encoded payload, checked to round-trip.
@MainActor
func makeEncodedDraft() throws -> (activity: UserActivity, data: Data) {
    let (center, _) = ResponderChainBuilder.center()
    let activity = try MailDraft.makeActivity(center: center)
    let data = try activity.payload.encoded()
    guard try UserActivityPayload(decoding: data) == activity.payload else {
        throw MailDraft.Failure("the mail draft does not round-trip")
    }
    return (activity, data)
}

/// `activity.payload.encoded()`; records the payload's sizes beside the times.
func registerEncoding() {
    let sizes = [CustomMetricName.payloadBytes, CustomMetricName.userInfoBytes, CustomMetricName.bodyBytes]
    register(Figures.encode, customMetrics: sizes, fixture: makeEncodedDraft) { fixture, sample in
        try sample.measure {
            for _ in 0..<sample.operations {
                blackHole(try fixture.activity.payload.encoded().count)
            }
        }
        sample.record(CustomMetricName.payloadBytes, fixture.data.count)
        sample.record(CustomMetricName.userInfoBytes, fixture.activity.payload.encodedUserInfoSize)
        sample.record(CustomMetricName.bodyBytes, MailDraft.body.utf8.count)
    }
}

/// `UserActivityPayload(decoding:)` of the encoded draft.
func registerDecoding() {
    register(Figures.decode, fixture: makeEncodedDraft) { fixture, sample in
        try sample.measure {
            for _ in 0..<sample.operations {
                blackHole(try UserActivityPayload(decoding: fixture.data).userInfo.count)
            }
        }
    }
}
