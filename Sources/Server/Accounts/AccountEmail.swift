import Logging
import Mail

/// Mails about the account itself (reset link, address confirmation): rendered here, sent at
/// once in the background so the HTTP answer does not reveal whether an account exists. Not
/// queued: if the mail server is down the owner asks again.
struct AccountMailer: Sendable {
    let options: MailOptions?
    let logger: Logger
    let now: @Sendable () -> Int64

    var configured: Bool { options != nil }

    func sendPasswordReset(to address: String, token: String) {
        guard let options else { return }
        let link = "\(options.publicURL)/#password-reset=\(token)"
        send(AccountEmail.message(
            to: address, options: options, now: now(), subject: "Reset your bikebeacon password",
            lines: ["Someone (hopefully you) asked to reset the password of your bikebeacon account.",
                    "Choose a new password here; the link works once, within 30 minutes:"],
            link: link, after: "If you did not ask, ignore this mail: your password stays as it is."), kind: "password reset")
    }

    func sendVerification(to address: String, token: String) {
        guard let options else { return }
        let link = "\(options.publicURL)/#verify-email=\(token)"
        send(AccountEmail.message(
            to: address, options: options, now: now(), subject: "Confirm your email for bikebeacon",
            lines: ["Welcome to bikebeacon. Confirm this address to log in and to get notified when your bike is found:"],
            link: link, after: "If you did not sign up, ignore this mail."), kind: "email verification")
    }

    private func send(_ message: MailMessage, kind: String) {
        guard let options else { return }
        let logger = logger
        Task {
            do {
                try await options.client.send(message)
                logger.info("account email sent", metadata: ["kind": "\(kind)"])
            } catch {
                logger.error("account email could not be sent; the owner can ask again",
                             metadata: ["kind": "\(kind)", "smtp": "\(options.smtp)", "error": "\(error)"])
            }
        }
    }
}

enum AccountEmail {
    static func message(to address: String, options: MailOptions, now: Int64, subject: String, lines: [String],
                        link: String, after: String) -> MailMessage {
        let text = (lines + ["", link, "", after]).joined(separator: "\n")
        let html = (["<!DOCTYPE html>", "<html><body style=\"font-family: sans-serif\">"]
            + lines.map { "<p>\(NotificationEmail.escape($0))</p>" }
            + ["<p><a href=\"\(NotificationEmail.escape(link))\">\(NotificationEmail.escape(link))</a></p>",
               "<p style=\"color: #666\">\(NotificationEmail.escape(after))</p>", "</body></html>"]).joined(separator: "\n")
        return MailMessage(from: options.from, to: [MailAddress(address)], subject: subject, text: text, html: html,
                           dateMilliseconds: now, messageID: "\(Tokens.id())@\(options.from.domain)")
    }
}
