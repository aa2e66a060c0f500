import BikebeaconAPI

/// The ways an owner can be told; each has a `NotificationSender` and a per-owner switch.
public enum NotificationChannel: String, Codable, Sendable, CaseIterable {
    case push
    case email
}

extension NotificationSettings {
    public func allows(_ channel: NotificationChannel) -> Bool {
        switch channel {
        case .push: push
        case .email: email
        }
    }
}
