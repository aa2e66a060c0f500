import Foundation
import Logging
import Mail
import NIOCore

/// Delivers queued notifications by email. The queue (`NotificationQueue`) claims each row before
/// calling, and marks it delivered when the server accepted the DATA, so an SMTP outage only
/// delays the message and it is sent once. The Message-ID is fixed per queued row, so even a crash
/// between the server's 250 and our bookkeeping would resend a message recognisable as the same.
struct EmailSender: NotificationSender {
    let channel = NotificationChannel.email
    let database: Database
    let options: MailOptions
    let logger: Logger
    let now: @Sendable () -> Int64

    func deliver(_ item: QueuedNotification) async -> DeliveryOutcome {
        let address: String
        do {
            guard let found = try await AccountStore(database: database).email(accountID: item.accountID) else {
                return .drop(reason: "the account no longer exists")
            }
            address = found
        } catch {
            return .retry(reason: "database: \(error)")
        }
        let message = NotificationEmail.message(item.notification, to: address, options: options, deliveryID: item.id, now: now())
        do {
            try await options.client.send(message)
            logger.info("notification email sent", metadata: ["delivery": "\(item.id)", "bike": "\(item.notification.bikeId)"])
            return .delivered
        } catch let error as SMTPError where !error.isTransient {
            return .drop(reason: error.description)
        } catch {
            return .retry(reason: "\(error) (SMTP \(options.smtp))")
        }
    }
}
