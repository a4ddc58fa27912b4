/// How long batond waits for each step of a handoff before it gives up with an error.
///
/// Every continuation batond starts ends in exactly one outcome: a step before delivery that
/// takes longer than its timeout fails the continuation with `remoteApplicationTimedOut`
/// (4610), and the app that was told `willContinue` gets that failure. Past delivery the app
/// has its outcome already; a restore that times out fails only the caller (`baton
/// continue`). An app whose service disappears fails its pending continuation itself, and
/// so does one whose activity has not arrived 60 s after `willContinue` (BatonGtk's
/// `HandoffClient`), which is why `--save-timeout` is at most 50 s.
struct Timeouts: Sendable {
    /// An app asked to save an activity (`Save`): 5 s.
    var save: Double
    /// A launched app, from launch until it registers: 20 s.
    var launch: Double
    /// An app given the activity (`CompleteContinuation`), until its restoration handler ran: 30 s.
    var restore: Double
    /// A paired device asked for an activity's payload (it asks its app to save first): 10 s.
    var fetch: Double
    /// Any other call to an app (`BeginContinuation`, `FailContinuation`, `WasContinued`): 5 s.
    var call: Double
    /// A continued document that Syncthing is bringing here, until its copy is the one the
    /// other device described; then batond copies it over the link instead: 20 s. The app
    /// shows the wait (`ReportProgress`), which keeps it waiting for the activity.
    var documentSync: Double = 20

    static let standard = Timeouts(save: 5, launch: 20, restore: 30, fetch: 10, call: 5, documentSync: 20)
}
