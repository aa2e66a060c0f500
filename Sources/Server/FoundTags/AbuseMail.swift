import BikebeaconAPI
import Durable
import Foundation
import Logging
import Mail
import SQLKit

/// The mail the operator (`serve --operator-email`) gets for a report of a hidden tag at once: whether it sealed the
/// bike or the breaker held it, the reporter's words and contact (escaped: they are a stranger's), and the commands
/// that resolve it. Pure.
enum AbuseMail {
    static func message(_ report: AbuseReport, to address: String, options: MailOptions, deliveryID: Int64, now: Int64) -> MailMessage {
        let held = report.status == "held"
        let subject = held ? "A report of a hidden tag waits for you: the breaker held it (report \(report.id))"
            : "A tag was reported hidden on someone (report \(report.id))"
        let facts = [
            ("Report", report.id),
            ("Reported at", Timestamp.format(milliseconds: report.createdMilliseconds)),
            ("Tag", report.beacon.description),
            ("Bike", report.bikeID),
            ("Owner", report.ownerEmail),
            ("Was missing", report.wasMissing ? "yes: it stays on the missing list, its sightings sealed" : "no"),
            ("Reporter's message", report.message.isEmpty ? "(none)" : report.message),
            ("Reporter's contact", report.contact.isEmpty ? "(none given)" : report.contact),
            ("Reporter's network", report.client),
        ]
        let advice = held ? """
            Too many reports came in this hour (serve --report-breaker-per-hour), so this one sealed nothing: it waits for you. \
            Run `bikebeacon-server abuse show \(report.id)`, then `abuse seal \(report.id)` to seal the bike, or `abuse dismiss \(report.id)`.
            """ : """
            The bike is sealed: its sightings are still stored but reach nobody through its owner, its share links are paused, \
            and the owner was told, without any of the reporter's data. Run `bikebeacon-server abuse show \(report.id)`, then \
            `abuse release \(report.id)` (the owner sees the sealed sightings, marked held for review) or `abuse close \(report.id)` \
            (genuine: recording ends, sealed sightings are kept for the police), or `abuse close-account \(report.id)`.
            """
        let text = ([subject + ".", ""] + facts.map { "\($0.0): \($0.1)" } + ["", advice, "", "-- ",
                    "You get this as the operator of this bikebeacon network."]).joined(separator: "\n")
        let html = (["<!DOCTYPE html>", "<html><body style=\"font-family: sans-serif\">",
                     "<h1 style=\"font-size: 1.3em\">\(HTML.escape(subject))</h1>", "<table>"]
            + facts.map { "<tr><th align=\"left\">\(HTML.escape($0.0))</th><td>\(HTML.escape($0.1))</td></tr>" }
            + ["</table>", "<p>\(HTML.escape(advice))</p>", "</body></html>"]).joined(separator: "\n")
        return MailMessage(from: options.from, to: [MailAddress(address)], subject: subject, text: text, html: html,
                           dateMilliseconds: now, messageID: "abuse-\(deliveryID)@\(options.from.domain)")
    }
}

/// Sends the operator's abuse mails queued with their reports, each claimed by the delivery lease first;
/// run by the delivery worker beside the sentinel alerts. An SMTP outage delays a mail, never loses it.
struct AbuseMailQueue: Sendable {
    let database: Database
    let mail: MailOptions
    let backoff: Backoff
    let logger: Logger
    let now: @Sendable () -> Int64

    func deliverDue() async throws {
        let time = now()
        let rows = try await database.withSession { db in
            try await db.raw("""
                SELECT m.id AS mail_id, m.address, m.attempts, m.next_attempt_ms, r.* FROM abuse_mails m JOIN abuse_reports r ON r.id = m.report_id
                WHERE m.delivered_ms IS NULL AND m.failed_ms IS NULL AND m.next_attempt_ms <= \(bind: time) ORDER BY m.next_attempt_ms LIMIT 50
                """).all().map { row in
                (id: try row.decode(column: "mail_id", as: Int64.self), address: try row.decode(column: "address", as: String.self),
                 attempts: try row.decode(column: "attempts", as: Int.self), next: try row.decode(column: "next_attempt_ms", as: Int64.self),
                 report: try AbuseStore.report(row))
            }
        }
        let record = AddressedMailRecord(table: "abuse_mails", what: "abuse report email", database: database, backoff: backoff, logger: logger)
        for row in rows {
            await record.deliver(id: row.id, attempts: row.attempts, nextAttempt: row.next, claimedAt: time, smtp: "\(mail.smtp)", now: now) {
                try await mail.client.send(AbuseMail.message(row.report, to: row.address, options: mail, deliveryID: row.id, now: now()))
                logger.notice("abuse report mailed to the operator", metadata: ["report": "\(row.report.id)", "mail": "\(row.id)"])
            }
        }
    }
}
