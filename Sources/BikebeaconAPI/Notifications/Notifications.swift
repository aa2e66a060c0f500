#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Something an owner is told about one bike: the value every channel (push, email) renders.
/// Its JSON is the Web Push payload (`PushPayload` in openapi.yaml), so it stays small (≤ 3 KB, see `maxPayloadBytes`).
public struct OwnerNotification: Codable, Sendable, Equatable {
    public enum Event: String, Codable, Sendable, CaseIterable {
        /// The missing bike came within range of a sentinel.
        case arrived
        /// It left a sentinel's range.
        case departed
        /// The owner marked it recovered.
        case recovered
        /// One of the bike's dates (insurance, inspection, service) is coming up.
        case reminder
        /// The bike leaves the missing list on `due` unless the owner renews it.
        case missingEnding
        /// The bike left the missing list: it was not renewed in time.
        case missingEnded
        /// The owner's home sentinel (`place`) stopped listening (degraded or silent; `reason` says why).
        case sentinelDown
        /// It listens again.
        case sentinelUp
        /// Someone who found the bike wrote to its owner (`message`, and `contact` if they gave one).
        case found
        /// Someone reported the bike's tag hidden on them: its sightings are sealed for the operator's review
        /// (`message` says what that means, `contact` how to reach the operator). No finder data.
        case reviewStarted
        /// The operator released the report: the sealed sightings are the owner's again, marked held for review.
        case reviewReleased
        /// The operator closed the report as genuine: the bike left the missing list and stays off it.
        case reviewClosed
    }

    public var event: Event
    public var bikeId: String
    public var bikeName: String
    public var ownerId: String
    /// Where it happened: the sentinel's name; nil for events without a place (recovery).
    public var place: String?
    public var latitude: Double?
    public var longitude: Double?
    /// When it happened, RFC 3339 with milliseconds.
    public var time: String
    /// The proximity zone reported with the sighting (`immediate`, `near`, `far`), when there was one.
    public var zone: String?
    /// How many events this notification stands for: more than 1 when later ones in the
    /// no-spam window were folded into it (it then describes the latest of them).
    public var count: Int
    /// A reminder's date: what falls due and the day (`YYYY-MM-DD`).
    public var dateName: String?
    public var due: String?
    /// Why a home sentinel stopped listening.
    public var reason: String?
    /// A finder's words (`found`), and how to reach them when they chose to say.
    public var message: String?
    public var contact: String?

    public init(event: Event, bikeId: String, bikeName: String, ownerId: String, place: String?, latitude: Double?,
                longitude: Double?, time: String, zone: String?, count: Int = 1, dateName: String? = nil, due: String? = nil,
                reason: String? = nil, message: String? = nil, contact: String? = nil) {
        self.event = event
        self.bikeId = bikeId
        self.bikeName = bikeName
        self.ownerId = ownerId
        self.place = place
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
        self.zone = zone
        self.count = count
        self.dateName = dateName
        self.due = due
        self.reason = reason
        self.message = message
        self.contact = contact
    }

    /// RFC 8291 leaves room for ~3.9 KB in one record; 3 KB keeps every push service happy.
    public static let maxPayloadBytes = 3 * 1024

    /// The payload as pushed and queued, within `maxPayloadBytes`: names of many-scalar characters
    /// (emoji sequences) can pass the character limits and still be too long in bytes, so they are shortened.
    public func json() throws -> String {
        var data = try APIJSON.encoder().encode(self)
        if data.count > Self.maxPayloadBytes {
            var short = self
            short.bikeName = String(bikeName.prefix(20))
            short.place = place.map { String($0.prefix(20)) }
            short.dateName = dateName.map { String($0.prefix(20)) }
            short.message = message.map { String($0.prefix(200)) }
            short.contact = contact.map { String($0.prefix(60)) }
            data = try APIJSON.encoder().encode(short)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// One line for people, e.g. "Commuter was seen at Cafe Rosa" (emails, logs).
    public var headline: String {
        switch event {
        case .arrived: "\(bikeName) was seen at \(place ?? "a sentinel")"
        case .departed: "\(bikeName) left \(place ?? "a sentinel")"
        case .recovered: "\(bikeName) was marked recovered"
        case .reminder: "\(bikeName): \(dateName ?? "a date") is due on \(due ?? "a day you set")"
        case .missingEnding: "\(bikeName) leaves the missing list on \(due ?? "a day soon") unless you renew it"
        case .missingEnded: "\(bikeName) is no longer on the missing list: it was not renewed"
        case .sentinelDown: "Your sentinel \(place ?? "") stopped listening"
        case .sentinelUp: "Your sentinel \(place ?? "") is listening again"
        case .found: "Someone found \(bikeName) and wrote to you"
        case .reviewStarted: "\(bikeName)'s sightings are on hold for a review"
        case .reviewReleased: "The review of \(bikeName) is over: its sightings are yours again"
        case .reviewClosed: "The review of \(bikeName) is closed: it stays off the missing list"
        }
    }
}

/// `GET/PUT /v1/account/notifications`: an owner's choice of channels; both on until changed.
public struct NotificationSettings: Codable, Sendable, Equatable {
    public var push: Bool
    public var email: Bool

    public init(push: Bool = true, email: Bool = true) {
        self.push = push
        self.email = email
    }
}

/// `PUT /v1/account/notifications`: fields left out keep their value.
public struct NotificationSettingsChange: Codable, Sendable, Equatable {
    public var push: Bool?
    public var email: Bool?

    public init(push: Bool? = nil, email: Bool? = nil) {
        self.push = push
        self.email = email
    }
}

/// `GET /v1/push/key`: the VAPID public key for `pushManager.subscribe`'s `applicationServerKey`.
public struct PushKey: Codable, Sendable, Equatable {
    public var publicKey: String

    public init(publicKey: String) {
        self.publicKey = publicKey
    }
}

/// `POST /v1/push/subscriptions`: the browser's `PushSubscription.toJSON()` (other fields ignored).
public struct PushSubscriptionRequest: Codable, Sendable, Equatable {
    public struct Keys: Codable, Sendable, Equatable {
        /// base64url uncompressed P-256 public key of the browser.
        public var p256dh: String
        /// base64url 16-byte authentication secret.
        public var auth: String

        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    public var endpoint: String
    public var keys: Keys

    public init(endpoint: String, keys: Keys) {
        self.endpoint = endpoint
        self.keys = keys
    }
}

/// The answer to `POST /v1/push/subscriptions`.
public struct PushSubscriptionCreated: Codable, Sendable, Equatable {
    public var id: String

    public init(id: String) {
        self.id = id
    }
}

/// One of the owner's push subscriptions as `GET /v1/push/subscriptions` lists it.
public struct PushSubscription: Codable, Sendable, Equatable {
    public var id: String
    public var endpoint: String
    public var createdAt: String

    public init(id: String, endpoint: String, createdAt: String) {
        self.id = id
        self.endpoint = endpoint
        self.createdAt = createdAt
    }
}

public struct PushSubscriptionList: Codable, Sendable, Equatable {
    public var subscriptions: [PushSubscription]

    public init(subscriptions: [PushSubscription]) {
        self.subscriptions = subscriptions
    }
}
