/// Which password checks may go ahead. Pure: the caller supplies the recent attempts and the time.
///
/// Every attempt is counted before bcrypt runs (`LoginGuard` records it first, then calls this), and only a
/// success removes it, so parallel guesses cannot outrun the limits. The limits bind the guessing client,
/// not the account: five failures on one email from one client address hold that address, while the owner
/// from any other address still gets in. Against guesses from many addresses, an email that has failed more
/// than `maxPerEmail` times in the window is only open to clients that have not failed on it. And one address
/// may make `maxPerClient` attempts over all emails, so it can neither spray guesses nor keep bcrypt busy.
public struct LoginThrottle: Sendable {
    /// Failed (and running) attempts on one email from one client address.
    public var maxFailures: Int
    /// Failed attempts on one email from all clients before those who failed on it are held.
    public var maxPerEmail: Int
    /// Failed (and running) attempts from one client address over all emails.
    public var maxPerClient: Int
    public var windowMilliseconds: Int64

    public init(maxFailures: Int = 5, maxPerEmail: Int = 20, maxPerClient: Int = 20, windowMilliseconds: Int64 = 5 * 60 * 1000) {
        self.maxFailures = maxFailures
        self.maxPerEmail = maxPerEmail
        self.maxPerClient = maxPerClient
        self.windowMilliseconds = windowMilliseconds
    }

    /// The attempts inside the window, times in epoch milliseconds, oldest first; without the one being decided.
    public struct Recent: Sendable, Equatable {
        /// On this email from this client.
        public var pair: [Int64]
        /// On this email from every client.
        public var email: Int
        /// From this client on every email.
        public var client: [Int64]

        public init(pair: [Int64], email: Int, client: [Int64]) {
            self.pair = pair
            self.email = email
            self.client = client
        }
    }

    public enum Refusal: Sendable, Equatable {
        /// This client failed too often on this email (or on an email under attack); milliseconds to wait.
        case email(wait: Int64)
        /// This client made too many attempts on any emails; milliseconds to wait.
        case client(wait: Int64)

        public var milliseconds: Int64 {
            switch self {
            case let .email(wait), let .client(wait): wait
            }
        }
    }

    /// nil when the attempt may go ahead.
    public func refusal(_ recent: Recent, now: Int64) -> Refusal? {
        let cutoff = now - windowMilliseconds
        let client = recent.client.filter { $0 > cutoff }
        if client.count >= maxPerClient { return .client(wait: untilBelow(maxPerClient, client, now: now)) }
        let pair = recent.pair.filter { $0 > cutoff }
        if pair.count >= maxFailures { return .email(wait: untilBelow(maxFailures, pair, now: now)) }
        // Under attack from many addresses: one that failed here waits until its failures age out.
        if recent.email >= maxPerEmail, let newest = pair.last { return .email(wait: max(1, newest + windowMilliseconds - now)) }
        return nil
    }

    /// Milliseconds until fewer than `limit` of `times` are inside the window.
    private func untilBelow(_ limit: Int, _ times: [Int64], now: Int64) -> Int64 {
        max(1, times[times.count - limit] + windowMilliseconds - now)
    }
}
