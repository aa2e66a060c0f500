import BikebeaconAPI
import Foundation

/// Who may see where a sighting was made. A home sentinel (`sentinels add --owner`) stands at
/// someone's home: its name and position are its owner's alone. To anyone else (another owner
/// whose tag it heard, a share link's holder, a theft report) its sightings read "a private
/// sentinel" at a position snapped to a grid of about 500 m; the operator keeps the exact place
/// (`bikebeacon-server sightings show ID`). Every other position is rounded to 4 decimals
/// (about 10 m, as fine as a phone's fix). Pure.
enum SightingPrivacy {
    static let privateName = "a private sentinel"
    /// The grid's north-south step: 0.005° of latitude is 556 m.
    static let gridDegrees = 0.005
    /// What a snapped position says of its accuracy, metres: about half the grid's diagonal.
    static let gridAccuracy = 500.0

    /// Whose home sentinel heard a sighting, stored with it (`sightings.sentinel_home`).
    enum Home: Int, Sendable {
        /// Not a home sentinel.
        case none = 0
        /// The bike owner's own home sentinel.
        case owners = 1
        /// Another owner's home sentinel.
        case others = 2

        init(sentinelOwner: String?, bikeOwner: String) {
            self = sentinelOwner == nil ? .none : sentinelOwner == bikeOwner ? .owners : .others
        }

        /// A home sentinel whose owner's account is gone is still someone's home: nobody's own.
        init(_ sentinel: Sentinel, bikeOwner: String) {
            self = sentinel.home ? Home(sentinelOwner: sentinel.ownerID ?? "", bikeOwner: bikeOwner) : .none
        }
    }

    /// Who reads: the bike's owner (signed in), or anyone holding a share link or the printed report.
    enum Audience: Sendable {
        case owner, anyone

        /// Whether this audience must not see the place of a sighting heard by such a sentinel.
        func hides(_ home: Home) -> Bool {
            switch (self, home) {
            case (_, .none), (.owner, .owners): false
            case (.owner, .others), (.anyone, _): true
            }
        }
    }

    /// A position on the ~500 m grid: latitude to 0.005°, longitude to 0.005° / cos(latitude), so the
    /// cell is about as wide as it is tall. Deterministic, so that many sightings of one place all
    /// land on the same point and averaging them reveals nothing finer.
    static func snapped(latitude: Double, longitude: Double) -> (latitude: Double, longitude: Double) {
        let lat = (latitude / gridDegrees).rounded() * gridDegrees
        let step = gridDegrees / max(cos(lat * .pi / 180), 0.01)
        var lon = (longitude / step).rounded() * step
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return (rounded(max(-90, min(90, lat))), rounded(lon))
    }

    /// Four decimals.
    static func rounded(_ degrees: Double) -> Double {
        (degrees * 10_000).rounded() / 10_000
    }

    /// The sighting as this audience may see it.
    static func view(_ record: SightingRecord, home: Home, audience: Audience) -> SightingRecord {
        var record = record
        guard audience.hides(home) else {
            record.latitude = record.latitude.map(rounded)
            record.longitude = record.longitude.map(rounded)
            return record
        }
        record.sentinel = privateName
        if let latitude = record.latitude, let longitude = record.longitude {
            let point = snapped(latitude: latitude, longitude: longitude)
            record.latitude = point.latitude
            record.longitude = point.longitude
            record.accuracy = max(record.accuracy ?? 0, gridAccuracy)
        }
        return record
    }

    /// A position in an owner's notification or event, as `audience` `.owner` may see it: nil
    /// name and snapped position for another owner's home sentinel.
    static func place(name: String, latitude: Double?, longitude: Double?, home: Home)
        -> (name: String, latitude: Double?, longitude: Double?, accuracy: Double?) {
        guard let latitude, let longitude else { return (Audience.owner.hides(home) ? privateName : name, nil, nil, nil) }
        guard Audience.owner.hides(home) else { return (name, rounded(latitude), rounded(longitude), nil) }
        let point = snapped(latitude: latitude, longitude: longitude)
        return (privateName, point.latitude, point.longitude, gridAccuracy)
    }
}
