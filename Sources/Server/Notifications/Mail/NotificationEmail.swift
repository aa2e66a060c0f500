import BikebeaconAPI
import Foundation
import Mail

/// The email an owner gets for one notification: subject, plain text and HTML. Pure.
enum NotificationEmail {
    static func message(_ notification: OwnerNotification, to address: String, options: MailOptions, deliveryID: Int64,
                        now: Int64) -> MailMessage {
        let bikeLink = "\(options.publicURL)/#bike=\(notification.bikeId)"
        var facts: [(String, String)]
        switch notification.event {
        case .reminder: facts = [("What", notification.dateName ?? ""), ("Due", notification.due ?? "")]
        case .missingEnding: facts = [("On the missing list until", notification.due ?? "")]
        case .missingEnded: facts = [("Off the missing list since", notification.due ?? "")]
        case .found: facts = [("When", notification.time), ("Their message", notification.message ?? ""),
                              ("Their contact", notification.contact ?? "they left none: answer is not possible")]
        case .reviewStarted, .reviewReleased, .reviewClosed:
            facts = [("When", notification.time), ("What this means", notification.message ?? ""),
                     ("The network's operator", notification.contact ?? "see this server's front page")]
        default: facts = [("When", notification.time)]
        }
        if let place = notification.place { facts.append(("Where", place)) }
        if let zone = notification.zone { facts.append(("How close", zone)) }
        var mapLink: String?
        if let latitude = notification.latitude, let longitude = notification.longitude {
            mapLink = "https://www.openstreetmap.org/?mlat=\(latitude)&mlon=\(longitude)#map=17/\(latitude)/\(longitude)"
        }
        let summary = notification.count > 1
            ? "This sums up \(notification.count) events in the last few minutes; this is the latest." : nil
        let closing: String
        switch notification.event {
        case .reminder: closing = "You get this because you asked to be reminded of this date; change or delete it on the bike's page."
        case .missingEnding: closing = "A bike stays on the missing list for a limited time, so that no tag can be followed for good. If it is still missing, mark it missing again on the bike's page to renew it."
        case .missingEnded: closing = "A bike stays on the missing list for a limited time, so that no tag can be followed for good. If it is still missing, mark it missing again on the bike's page."
        case .found: closing = "Someone who found your bike's tag wrote this on bikebeacon's \"Found a tag?\" page; they were not told who you are. Take care when you meet a stranger: the police can come along."
        case .reviewStarted, .reviewReleased, .reviewClosed: closing = "You get this because a report about your bike's tag was made on this bikebeacon network, or its review ended. You are told of every such step."
        default: closing = "You get this because your bike is marked missing."
        }
        let footer = closing + " Turn email notifications off in the dashboard's settings."

        var text = [notification.headline + ".", ""]
        if let summary { text += [summary, ""] }
        text += facts.map { "\($0.0): \($0.1)" }
        if let mapLink { text.append("Map: \(mapLink)") }
        text += ["", "Open the bike in bikebeacon: \(bikeLink)", "", "-- ", footer]

        var html = ["<!DOCTYPE html>", "<html><body style=\"font-family: sans-serif\">",
                    "<h1 style=\"font-size: 1.3em\">\(escape(notification.headline))</h1>"]
        if let summary { html.append("<p>\(escape(summary))</p>") }
        html.append("<table>")
        html += facts.map { "<tr><th align=\"left\">\(escape($0.0))</th><td>\(escape($0.1))</td></tr>" }
        html.append("</table>")
        if let mapLink { html.append("<p><a href=\"\(escape(mapLink))\">Show on the map</a></p>") }
        html += ["<p><a href=\"\(escape(bikeLink))\">Open \(escape(notification.bikeName)) in bikebeacon</a></p>",
                 "<p style=\"color: #666; font-size: 0.85em\">\(escape(footer))</p>", "</body></html>"]

        return MailMessage(from: options.from, to: [MailAddress(address)], subject: notification.headline,
                           text: text.joined(separator: "\n"), html: html.joined(separator: "\n"), dateMilliseconds: now,
                           messageID: "notification-\(deliveryID).\(notification.bikeId)@\(options.from.domain)")
    }

    /// Text for HTML element content and attribute values.
    static func escape(_ text: String) -> String { HTML.escape(text) }
}
