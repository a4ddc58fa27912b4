import Foundation

/// A page of the webmail site (`https://mail.example.org`) that MailComposer opens itself when
/// it is continued from a browser on another device: the app claims the domain
/// (`X-Baton-Domains` in its desktop entry) and the site's association file confirms it.
///
/// - `/compose?to=…&cc=…&subject=…&body=…`: a new message, its fields read as a `mailto:`
///   link's are (``MailtoLink``), so the same rules hold: one-line recipients and subject, a
///   link that is not correctly percent-encoded opens nothing;
/// - `/drafts/UUID`: the draft of that id, which ``ComposeWindow/webpageURL`` names;
/// - `/` and `/inbox`: the message list.
///
/// Any other page is not the app's to show: it opens in the browser.
enum MailWebPage: Equatable {
    case compose(MailtoLink)
    case draft(UUID)
    case inbox

    /// The page `url` names, or `nil` when it is not a page of the site the app shows.
    init?(_ url: URL) {
        guard let webmail = URL(string: MailActivities.webmail), url.scheme?.lowercased() == "https",
              url.host?.lowercased() == webmail.host, url.port == nil || url.port == 443 else { return nil }
        let parts = url.path.split(separator: "/")
        switch parts.count {
        case 0:
            self = .inbox
        case 1 where parts[0] == "inbox":
            self = .inbox
        case 1 where parts[0] == "compose":
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            guard let link = try? MailtoLink(uri: "mailto:?" + (components?.percentEncodedQuery ?? "")) else { return nil }
            self = .compose(link)
        case 2 where parts[0] == "drafts":
            guard let id = UUID(uuidString: String(parts[1])) else { return nil }
            self = .draft(id)
        default:
            return nil
        }
    }
}
