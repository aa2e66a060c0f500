import BikebeaconAPI
import Foundation
import Logging
import Mail

/// A bike marked missing under the new-tag hold on a police reference alone (#43). The reference is the owner's
/// word: someone who hid a tag on a person could register it and type one. So it is never silent: the server logs it,
/// every `serve --operator-email` is mailed at once (sent straight away, like the account mails: a mail server that
/// is down loses it, and the log line and `reads` still show it), and `reads` marks the report.
enum PoliceReferenceNotice {
    /// What the operator needs to check the reference. Pure.
    static func message(to addresses: [String], from: MailAddress, bikeID: String, ownerEmail: String, tag: String,
                        tagHours: Double, reference: String, now: Int64) -> MailMessage {
        let lines = [
            "A bike was marked missing with a police reference while its tag was new on it (the new-tag hold), so it is on",
            "every sentinel's list on the owner's word alone.",
            "",
            "bike: \(bikeID)",
            "owner: \(ownerEmail)",
            "tag: \(tag), on the bike for \(String(format: "%.1f", tagHours)) h",
            "police reference: \(reference)",
            "marked missing: \(Timestamp.format(milliseconds: now))",
            "",
            "Check the reference with the police. Who reads the bike's sightings: bikebeacon-server reads \(bikeID)",
            "If the tag may be hidden on a person, report it through \"Found a tag?\" to seal it, or close the account",
            "(bikebeacon-server abuse).",
        ]
        return MailMessage(from: from, to: addresses.map { MailAddress($0) }, subject: "bikebeacon: a new tag went on the missing list on a police reference",
                           text: lines.joined(separator: "\n"), dateMilliseconds: now, messageID: "\(Tokens.id())@\(from.domain)")
    }

    /// Logs the pass and mails the operators in the background; never throws into the owner's request.
    static func tell(state: ServerState, bikeID: String, ownerID: String, report: ReadLogExport.Report) async {
        let hours = Double(report.time - report.tagSince) / Double(NewTagHold.hour)
        state.logger.notice("a new tag went on the missing list on a police reference alone; check it (bikebeacon-server reads)",
                            metadata: ["bike": "\(bikeID)", "tag_hours": "\(String(format: "%.1f", hours))"])
        let addresses = state.options.sentinelAlerts.operatorEmails
        guard let mail = state.options.mail, !addresses.isEmpty, let reference = report.policeReference else { return }
        let ownerEmail = (try? await state.accounts.email(accountID: ownerID)) ?? ownerID
        let message = message(to: addresses, from: mail.from, bikeID: bikeID, ownerEmail: ownerEmail, tag: report.tag,
                              tagHours: hours, reference: reference, now: report.time)
        let logger = state.logger
        Task {
            do {
                try await mail.client.send(message)
            } catch {
                logger.error("the operator could not be mailed about a police reference that passed the new-tag hold; see `reads`",
                             metadata: ["bike": "\(bikeID)", "smtp": "\(mail.smtp)", "error": "\(error)"])
            }
        }
    }
}
