/// What went wrong talking to the mail server, worded for the operator who must fix it.
public enum SMTPError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case malformedReply(String)
    /// The server refused a command; `transient` (4xx) means trying later may work.
    case rejected(command: String, reply: SMTPReply)
    case timeout(waitingFor: String)
    case connectionClosed(waitingFor: String)
    case tlsRequiredForAuthentication
    case noCommonAuthenticationMechanism(offered: [String])
    case invalidMessage(String)

    /// Whether a later attempt can succeed: network trouble and 4xx replies yes, a 5xx refusal of a recipient no.
    public var isTransient: Bool {
        switch self {
        case let .rejected(_, reply): reply.isTransient
        case .timeout, .connectionClosed, .malformedReply: true
        case .invalidURL, .tlsRequiredForAuthentication, .noCommonAuthenticationMechanism, .invalidMessage: false
        }
    }

    public var description: String {
        switch self {
        case let .invalidURL(why): "invalid SMTP URL: \(why); expected smtp://[user:pass@]host[:port] or smtps://…"
        case let .malformedReply(why): "the mail server sent something that is not an SMTP reply (\(why)); is the port an SMTP port?"
        case let .rejected(command, reply): "the mail server answered \(command) with \(reply.code) \(reply.text)"
        case let .timeout(what): "the mail server did not answer in time (waiting for \(what)); check it is up and reachable"
        case let .connectionClosed(what): "the mail server closed the connection (waiting for \(what))"
        case .tlsRequiredForAuthentication:
            "the mail server offers no STARTTLS, so the password would travel in clear; use smtps:// or a server with STARTTLS"
        case let .noCommonAuthenticationMechanism(offered):
            "the mail server offers AUTH \(offered.joined(separator: " ")), none of PLAIN or LOGIN; drop the credentials or change the server"
        case let .invalidMessage(why): "cannot send this message: \(why)"
        }
    }
}
