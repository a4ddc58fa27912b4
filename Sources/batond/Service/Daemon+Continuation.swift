import Baton
import BatonBus
import BatonGLib
import Foundation

/// Continuing: the activities listed here, fetched, inspected and continued (`Inspect`,
/// `Fetch`, `Continue`, `ContinueWithOptions`, `CancelContinue`, `ContinuePayload`,
/// `OpenContinuationStream`).
extension Daemon {
    /// The rows of ``methods`` for fetching and continuing activities.
    static var continuationMethods: [DaemonMethod] {
        [
            DaemonMethod("Inspect") { daemon, call, _ in
                guard let (app, published) = daemon.registry.current else {
                    throw ServiceError.unknownActivity("(current)")
                }
                daemon.answer(call) { [broker = daemon.broker] in
                    [.bytes(try await broker.save(app, activityID: published.appActivityID,
                                                  type: published.summary.activityType))]
                }
            },
            DaemonMethod("Fetch", ["s"]) { daemon, call, arguments in
                let source = try daemon.source(try arguments.string(0))
                daemon.answer(call) { [broker = daemon.broker] in [.bytes(try await broker.fetch(source))] }
            },
            DaemonMethod("Continue", ["s"]) { daemon, call, arguments in
                try daemon.continueActivity(call, offerID: try arguments.string(0), options: [:])
            },
            DaemonMethod("ContinueWithOptions", ["s", "a{sv}"]) { daemon, call, arguments in
                try daemon.continueActivity(call, offerID: try arguments.string(0), options: try arguments.dictionary(1))
            },
            DaemonMethod("CancelContinue", ["s"]) { daemon, call, arguments in
                call.reply([.bool(daemon.continueCalls.cancel(caller: call.sender, offerID: try arguments.string(0)))])
            },
            DaemonMethod("ContinuePayload", ["ay", "a{sv}"]) { daemon, call, arguments in
                let bytes = try arguments.bytes(0)
                let payload = try ContinuationBroker.decode(bytes)
                let teamID = try Self.option(try arguments.dictionary(1), "team-id")
                daemon.answer(call) { [broker = daemon.broker] in
                    try await broker.continueActivity(.payload(bytes, payload, teamID: teamID))
                    return []
                }
            },
            DaemonMethod("OpenContinuationStream", ["s"]) { daemon, call, arguments in
                let open = try daemon.broker.streamOpener(token: try arguments.string(0), caller: call.sender)
                daemon.answer(call) { [.fileDescriptor(try await open())] }
            },
        ]
    }

    /// `Continue` and `ContinueWithOptions`: continues the activity listed as `offerID`, with
    /// the caller's activation token when `options` give one.
    private func continueActivity(_ call: BusMethodCall, offerID: String, options: [String: BusValue]) throws {
        let token = try Self.activationToken(in: options)
        let source = try source(offerID)
        offerNotifications.used(offerID)
        continueCalls.run(caller: call.sender, offerID: offerID) { [broker] in
            do {
                try await broker.continueActivity(source, activationToken: token)
                call.reply([])
            } catch {
                call.fail(with: error)
            }
        }
    }

    /// The activity listed under `id`: a local current activity or an offer.
    func source(_ id: String) throws -> ActivitySource {
        if let (app, published) = registry.published(id) {
            guard published.summary.isEligibleForHandoff, !published.summary.isExpired() else {
                throw ServiceError.activity(.handoffFailed("the activity \(id) is not eligible for Handoff"))
            }
            return .local(app, published)
        }
        if let offer = offers.offers[id], !offer.summary.isExpired(), settingsStore.policy.allows(offer) { return .offer(offer) }
        throw ServiceError.unknownActivity(id)
    }

    func continueFromNotification(_ offerID: String, activationToken: String? = nil) {
        guard let source = try? source(offerID) else { return }
        let offer = offers.offers[offerID]
        offerNotifications.used(offerID)
        offerNotifications.showProgress(of: offer) { [self] in
            do {
                try await broker.continueActivity(source, activationToken: activationToken)
            } catch {
                logger.notice("continuing offer \(offerID) failed: \(error)")
                // Said where the person clicked: in a notification, in plain words.
                if let offer { offerNotifications.showFailure(of: offer, error) }
            }
        }
    }

    /// The caller's activation token among `ContinueWithOptions`' options, if it gave one.
    ///
    /// - Throws: ``ServiceError/invalidArguments(_:)`` for a token that is not a string batond
    ///   passes on.
    private static func activationToken(in options: [String: BusValue]) throws -> String? {
        guard let value = options[BatonService.continueActivationTokenKey] else { return nil }
        guard let token = value.string, BatonService.isAcceptableActivationToken(token) else {
            throw ServiceError.invalidArguments("option \"\(BatonService.continueActivationTokenKey)\" must be a string of 1 to "
                + "\(BatonService.maximumActivationTokenLength) bytes without control characters")
        }
        return token
    }

    /// The text of option `key`, if given.
    ///
    /// - Throws: ``ServiceError/invalidArguments(_:)`` for a value that is not a string of 1
    ///   to 255 bytes.
    static func option(_ options: [String: BusValue], _ key: String) throws -> String? {
        guard let value = options[key] else { return nil }
        guard let text = value.string, !text.isEmpty, text.utf8.count <= 255 else {
            throw ServiceError.invalidArguments("option \"\(key)\" must be a string of 1 to 255 bytes")
        }
        return text
    }
}
