import Foundation

/// A message's `Date:` header as people read dates in a mail list: "10:10" today,
/// "Yesterday", the weekday within the last week, "21 November" this year, "21 November 2025"
/// before; in the local time zone. A header that cannot be read is shown as it is.
enum FriendlyDate {
    /// The header's formats: RFC 5322's (with or without the weekday) and ISO 8601, which
    /// drafts sent here carry.
    private static let parsers: [DateFormatter] = ["EEE, d MMM yyyy HH:mm:ss Z", "d MMM yyyy HH:mm:ss Z"].map { format in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = format
        return formatter
    }

    static func date(fromHeader header: String) -> Date? {
        let text = header.trimmingCharacters(in: .whitespaces)
        for parser in parsers { if let date = parser.date(from: text) { return date } }
        return try? Date(text, strategy: .iso8601)
    }

    /// How `header` reads in the list, relative to `now`.
    static func text(ofHeader header: String, now: Date = Date(), calendar: Calendar = .current) -> String {
        guard let date = date(fromHeader: header) else { return header }
        let time = date.formatted(date: .omitted, time: .shortened)
        if calendar.isDate(date, inSameDayAs: now) { return time }
        let startOfToday = calendar.startOfDay(for: now)
        if let yesterday = calendar.date(byAdding: .day, value: -1, to: startOfToday), calendar.isDate(date, inSameDayAs: yesterday) {
            return "Yesterday"
        }
        if let weekAgo = calendar.date(byAdding: .day, value: -6, to: startOfToday), date >= weekAgo, date < now {
            return date.formatted(.dateTime.weekday(.wide))
        }
        if calendar.component(.year, from: date) == calendar.component(.year, from: now) {
            return date.formatted(.dateTime.day().month(.wide))
        }
        return date.formatted(.dateTime.day().month(.wide).year())
    }

    /// The date and time in full, for a message's header: "Saturday, 21 November 2026 at 10:10".
    static func longText(ofHeader header: String) -> String {
        guard let date = date(fromHeader: header) else { return header }
        return date.formatted(.dateTime.weekday(.wide).day().month(.wide).year().hour().minute())
    }
}
