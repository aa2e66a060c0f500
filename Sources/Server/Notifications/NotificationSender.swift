import BikebeaconAPI
/// One queued notification on its way out through one channel.
public struct QueuedNotification: Sendable, Equatable {
    public var id: Int64
    public var channel: NotificationChannel
    public var accountID: String
    /// Channel-specific: the push subscription's id; for email, empty (the sender looks up the owner's address).
    public var target: String
    public var notification: OwnerNotification
    /// Failed attempts so far.
    public var attempts: Int
}

/// What became of one delivery attempt; the queue turns it into done, retry or drop.
public enum DeliveryOutcome: Sendable, Equatable {
    case delivered
    /// Try again with backoff, or not before `after` milliseconds when the peer said so (Retry-After).
    case retry(reason: String, afterMilliseconds: Int64? = nil)
    /// Never try this one again (the subscription is gone, the message can never fit, the target is refused).
    case drop(reason: String)
}

/// A channel's delivery: push to a push service, email over SMTP. Registered with the server in
/// `BikebeaconServer.makeApplication`; the durable queue (`NotificationQueue`) calls it.
public protocol NotificationSender: Sendable {
    var channel: NotificationChannel { get }
    func deliver(_ item: QueuedNotification) async -> DeliveryOutcome
}
