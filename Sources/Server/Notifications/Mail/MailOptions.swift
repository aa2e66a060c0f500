import Mail
import NIOCore
import NIOSSL

/// How the server sends email (`serve --smtp-url … --mail-from … --public-url …`); absent, no
/// email is sent and password reset answers as usual but mails nothing.
public struct MailOptions: Sendable {
    public var smtp: SMTPURL
    public var from: MailAddress
    /// Where owners reach the dashboard; links in emails start with it (no trailing slash).
    public var publicURL: String
    /// Certificate checks for STARTTLS and smtps (the system's roots unless a CA file is given).
    public var tls: TLSConfiguration
    /// Per SMTP reply.
    public var timeout: TimeAmount
    /// Per message: within the delivery lease, so a slow server cannot cause a second send.
    public var totalTimeout: TimeAmount { .milliseconds(DeliveryLease.duration * 2 / 3) }

    public init(smtp: SMTPURL, from: MailAddress, publicURL: String, tls: TLSConfiguration = .makeClientConfiguration(),
                timeout: TimeAmount = .seconds(10)) {
        self.smtp = smtp
        self.from = from
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.tls = tls
        self.timeout = timeout
    }

    var client: SMTPClient {
        SMTPClient(url: smtp, heloName: from.domain, timeout: timeout, totalTimeout: totalTimeout, tls: tls)
    }
}
