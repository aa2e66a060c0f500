import BikebeaconAPI
/// The no-spam rule, kept pure (time is an input): per bike and place at most one notification
/// per interval. The first event in a quiet period goes out at once; later ones in the window are
/// held back and folded into one, which goes out when the window ends (`flush`) or with the next
/// event after it, whichever comes first.
struct NotificationWindow: Sendable, Equatable {
    /// When the last notification for this bike and place was sent, epoch milliseconds.
    var lastSentMilliseconds: Int64
    /// The latest held-back event, its `count` covering every event held back since.
    var pending: OwnerNotification?
}

enum NotificationPolicy {
    struct Decision: Sendable, Equatable {
        /// What to send now, if anything.
        var send: OwnerNotification?
        var window: NotificationWindow
    }

    /// The window key for events without a place (recovery).
    static let noPlace = ""

    /// A new event for this bike and place.
    static func offer(_ notification: OwnerNotification, window: NotificationWindow?, now: Int64, interval: Int64) -> Decision {
        var folded = notification
        folded.count += window?.pending?.count ?? 0
        guard let window, now - window.lastSentMilliseconds < interval else {
            return Decision(send: folded, window: NotificationWindow(lastSentMilliseconds: now, pending: nil))
        }
        return Decision(send: nil, window: NotificationWindow(lastSentMilliseconds: window.lastSentMilliseconds, pending: folded))
    }

    /// The window at `now`: its held-back summary goes out once the window has ended.
    static func flush(_ window: NotificationWindow, now: Int64, interval: Int64) -> Decision {
        guard let pending = window.pending, now - window.lastSentMilliseconds >= interval else {
            return Decision(send: nil, window: window)
        }
        return Decision(send: pending, window: NotificationWindow(lastSentMilliseconds: now, pending: nil))
    }
}
