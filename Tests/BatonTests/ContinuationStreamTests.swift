import Baton
import BatonTesting
import XCTest

/// Continuation streams in the core: only an activity being continued, whose origin set
/// `supportsContinuationStreams`, opens one; the provider's stream or error arrives through
/// both forms; the origin delegate's default closes what it receives.
@MainActor
final class ContinuationStreamTests: XCTestCase {
    private let type = "org.example.mail.compose"

    /// Delivers an activity through a continuation whose streams come from `provider`.
    private func deliver(supportsStreams: Bool, provider: InMemoryStreamProvider) -> (UserActivity, RecordingApplicationDelegate) {
        let (center, _) = ResponderChainBuilder.center()
        let application = Application(center: center)
        let delegate = RecordingApplicationDelegate()
        application.delegate = delegate
        let continuation = application.beginContinuation(activityType: type)
        continuation.streamProvider = provider
        let activity = UserActivity(activityType: type, center: center)
        activity.supportsContinuationStreams = supportsStreams
        continuation.complete(with: activity)
        XCTAssertTrue(delegate.continued.first === activity)
        keep(application, delegate)
        return (activity, delegate)
    }

    private var kept: [AnyObject] = []
    private func keep(_ objects: AnyObject...) { kept += objects }

    func testAnActivityNotBeingContinuedCannotOpenStreams() async {
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: type, center: center)
        activity.supportsContinuationStreams = true
        do {
            _ = try await activity.continuationStreams()
            XCTFail("opened a stream")
        } catch let error as UserActivityError {
            XCTAssertEqual(error.code, 4608)
            XCTAssertTrue("\(error)".contains("not being continued"), "\(error)")
        } catch {
            XCTFail("\(error)")
        }
    }

    func testWithoutTheOriginsFlagTheStreamIsRefusedAndNothingIsAsked() async {
        let provider = InMemoryStreamProvider()
        let (activity, _) = deliver(supportsStreams: false, provider: provider)
        var received: (ContinuationStream?, (any Error)?)?
        activity.getContinuationStreams { received = ($0, $1) }
        XCTAssertNil(received?.0)
        XCTAssertTrue("\(received?.1 ?? UserActivityError.cancelled)".contains("supportsContinuationStreams"))
        XCTAssertEqual(provider.openCount, 0)
    }

    func testARequestAndItsAnswerTravelBetweenTheTwoEnds() async throws {
        let provider = InMemoryStreamProvider()
        provider.onOpen = { origin in
            Task { @MainActor in
                let request = try await origin.readToEnd(limit: 1024)
                try await origin.write(Array("echo: ".utf8) + request)
                origin.close()
            }
        }
        let (activity, _) = deliver(supportsStreams: true, provider: provider)
        let stream = try await activity.continuationStreams()
        try await stream.write(Array("attachments, please".utf8))
        stream.closeWrite()
        let answer = try await stream.readToEnd(limit: 1024)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "echo: attachments, please")
        stream.close()
    }

    func testTheProvidersErrorArrives() async {
        let provider = InMemoryStreamProvider()
        provider.failure = .connectionUnavailable("the origin app quit")
        let (activity, _) = deliver(supportsStreams: true, provider: provider)
        do {
            _ = try await activity.continuationStreams()
            XCTFail("opened a stream")
        } catch let error as UserActivityError {
            XCTAssertEqual(error.code, 4609)
        } catch {
            XCTFail("\(error)")
        }
    }

    func testTheOriginDelegatesDefaultClosesTheStream() async throws {
        final class Quiet: UserActivityDelegate {}
        let (center, _) = ResponderChainBuilder.center()
        let activity = UserActivity(activityType: type, center: center)
        let (continuing, origin) = InMemoryContinuationStream.makePair()
        let delegate = Quiet()
        delegate.userActivity(activity, didReceive: origin)
        XCTAssertTrue(origin.isClosed)
        do {
            try await continuing.write([1])
            XCTFail("wrote to a closed stream")
        } catch {
            XCTAssertEqual((error as? UserActivityError)?.code, 4609)
        }
        let end = try await continuing.read(maximumCount: 10)
        XCTAssertEqual(end, [], "the end of the stream")
    }
}
