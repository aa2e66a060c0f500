import Foundation
import Mail

/// The mail a sentinel's host, its owner or the operator gets when it turns degraded or silent, or
/// recovers: what is wrong, since when, and what to try. Pure.
enum SentinelAlertEmail {
    static func subject(_ alert: SentinelAlert) -> String {
        switch (alert.kind, alert.state) {
        case ("recovered", _): "Sentinel \(alert.sentinel) is listening again"
        case (_, "silent"): "Sentinel \(alert.sentinel) has gone silent"
        default: "Sentinel \(alert.sentinel) is not listening properly"
        }
    }

    /// What the reader can do about it, by who they are and what is wrong.
    static func advice(_ alert: SentinelAlert) -> String {
        if alert.kind == "recovered" { return "Nothing to do: it reports again and hears the street." }
        if alert.role == "operator" {
            return "Run `bikebeacon-server sentinels show \"\(alert.sentinel)\"` for its last heartbeat and history."
        }
        return alert.state == "silent"
            ? "Please check that the sentinel (the small computer) has power and that its network (Wi-Fi or cable) works; a restart often helps."
            : "Please restart the sentinel (unplug it for ten seconds); if this mail comes again, tell the operator who set it up."
    }

    static func message(_ alert: SentinelAlert, to address: String, options: MailOptions, deliveryID: Int64, now: Int64) -> MailMessage {
        let subject = subject(alert)
        var facts = [("Sentinel", alert.sentinel), ("State", alert.state), ("Since", alert.since)]
        if !alert.reason.isEmpty { facts.append(("Why", alert.reason)) }
        let role = switch alert.role {
        case "host": "You get this because you host this sentinel."
        case "owner": "You get this because this is your home sentinel."
        default: "You get this as the operator of this bikebeacon network."
        }
        let text = ([subject + ".", ""] + facts.map { "\($0.0): \($0.1)" } + ["", advice(alert), "", "-- ", role]).joined(separator: "\n")
        let html = (["<!DOCTYPE html>", "<html><body style=\"font-family: sans-serif\">",
                     "<h1 style=\"font-size: 1.3em\">\(HTML.escape(subject))</h1>", "<table>"]
            + facts.map { "<tr><th align=\"left\">\(HTML.escape($0.0))</th><td>\(HTML.escape($0.1))</td></tr>" }
            + ["</table>", "<p>\(HTML.escape(advice(alert)))</p>",
               "<p style=\"color: #666; font-size: 0.85em\">\(HTML.escape(role))</p>", "</body></html>"]).joined(separator: "\n")
        return MailMessage(from: options.from, to: [MailAddress(address)], subject: subject, text: text, html: html,
                           dateMilliseconds: now, messageID: "sentinel-alert-\(deliveryID)@\(options.from.domain)")
    }
}
