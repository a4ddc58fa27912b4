import BatonBus

extension Offer {
    /// Throws unless the offer may be listed: what every offer passes, whatever made it (an
    /// app's `AddOffer`, a paired device, a phone): its activity type and title as batond
    /// takes them from apps (``ActivitySummary/checkActivityType(_:)``,
    /// ``ActivitySummary/checkTitle(_:)``: no control or bidirectional characters, no line
    /// separators, within the size limit), and the name of its device shown beside it
    /// likewise, at most 255 bytes.
    ///
    /// - Throws: ``ServiceError/invalidArguments(_:)`` naming the field.
    func check() throws {
        try ActivitySummary.checkActivityType(summary.activityType)
        if let title = summary.title { try ActivitySummary.checkTitle(title) }
        guard !device.isEmpty, device.utf8.count <= 255, !UnsafeCharacters.occur(in: device) else {
            throw ServiceError.invalidArguments("the device name \"\(Excerpt.of(device))\" must be 1 to 255 bytes without "
                + "control characters, bidirectional controls or line separators")
        }
    }
}
