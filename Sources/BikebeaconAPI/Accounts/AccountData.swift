/// `GET /v1/account/export`: everything the server keeps about an owner, in one file they can take away.
public struct AccountExport: Codable, Sendable, Equatable {
    public var account: Account
    public var createdAt: String
    public var exportedAt: String
    /// Where events are POSTed; the signing secret is left out (it is a credential, not data).
    public var webhookUrl: String?
    public var bikes: [Bike]
    /// Every sighting of every bike, oldest first.
    public var sightings: [SightingRecord]
    public var notifications: NotificationSettings
    /// The browsers that receive pushes (their keys stay on the server).
    public var pushSubscriptions: [PushSubscription]
    /// Where the account is logged in.
    public var sessions: [Session]
    /// Every share link made for the account's bikes (their tokens are not kept, so not here).
    public var shares: [Share]
    /// Every bike's dates and the state of their reminders.
    public var dates: [BikeDate]

    public init(account: Account, createdAt: String, exportedAt: String, webhookUrl: String?, bikes: [Bike], sightings: [SightingRecord],
                notifications: NotificationSettings, pushSubscriptions: [PushSubscription], sessions: [Session], shares: [Share] = [],
                dates: [BikeDate] = []) {
        self.account = account
        self.createdAt = createdAt
        self.exportedAt = exportedAt
        self.webhookUrl = webhookUrl
        self.bikes = bikes
        self.sightings = sightings
        self.notifications = notifications
        self.pushSubscriptions = pushSubscriptions
        self.sessions = sessions
        self.shares = shares
        self.dates = dates
    }
}

/// `DELETE /v1/account`: the password again, so a stolen session alone cannot erase an owner.
public struct AccountDeletion: Codable, Sendable, Equatable {
    public var password: String

    public init(password: String) {
        self.password = password
    }
}
