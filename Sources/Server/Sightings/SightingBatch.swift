import Beacon
import BikebeaconAPI
import Foundation

/// One item of a sighting batch, decoded on its own so that a malformed item is refused with a
/// reason while the rest of the batch is stored.
struct LenientSightingItem: Codable, Sendable {
    var decoded: Result<SightingItem, Rejection>

    init(from decoder: any Decoder) throws {
        do {
            decoded = .success(try SightingItem(from: decoder))
        } catch let error as DecodingError {
            // Echo the id when there is one, so the sentinel can tell which item this was.
            let id = (try? IDOnly(from: decoder))?.id ?? ""
            decoded = .failure(Rejection(id: id, reason: "not a sighting: \(ErrorMiddleware<AppContext>.describe(error))"))
        }
    }

    func encode(to encoder: any Encoder) throws {
        if case let .success(item) = decoded { try item.encode(to: encoder) }
    }

    private struct IDOnly: Decodable { var id: String }
}

extension SightingEvent {
    /// Owners are told about comings and goings, not every "still here".
    var notifies: Bool { self != .present }
}

/// A checked sighting, ready to store.
struct NewSighting: Sendable, Equatable {
    /// The id as sent, echoed in rejections.
    var rawID: String
    /// The id in canonical (lower-case) form, the idempotency key.
    var clientID: String
    var beacon: BeaconID
    var event: SightingEvent
    var time: Int64
    var firstSeen: Int64
    var lastSeen: Int64
    var rssi: Int
    var distance: Double?
    var zone: String
    /// Where it was heard, when the sentinel says (a roaming one).
    var place: Place = .enrolled

    /// The sighting's place as the sentinel sent it.
    enum Place: Sendable, Equatable {
        /// No `fix`: the sentinel's enrolled place.
        case enrolled
        /// `fix: gps`: the sentinel's own position.
        case gps(latitude: Double, longitude: Double, accuracy: Double?, fixTime: Int64)
        /// `fix: none`: a roaming sentinel without a recent fix; no position.
        case none
    }
}

/// Checks each item of a batch. Pure: the server's clock is an input, no database.
enum SightingValidation {
    static let zones = Set(SightingZones.all)
    /// How far a fix's time may be ahead of the server's clock (two clocks never agree exactly).
    static let fixTimeSkew: Int64 = 60_000

    static func validate(_ items: [LenientSightingItem], now: Int64) -> (valid: [NewSighting], rejected: [Rejection]) {
        var valid: [NewSighting] = []
        var rejected: [Rejection] = []
        var seen = Set<String>()
        for lenient in items {
            switch lenient.decoded.flatMap({ validate($0, now: now) }) {
            case let .success(sighting):
                // A repeated id inside one batch is the same sighting sent twice.
                if seen.insert(sighting.clientID).inserted { valid.append(sighting) }
            case let .failure(rejection):
                rejected.append(rejection)
            }
        }
        return (valid, rejected)
    }

    static func validate(_ item: SightingItem, now: Int64) -> Result<NewSighting, Rejection> {
        func reject(_ reason: String) -> Result<NewSighting, Rejection> { .failure(Rejection(id: item.id, reason: reason)) }
        guard let clientID = UUID(uuidString: item.id) else { return reject("'id' must be a UUID") }
        guard let beaconUUID = UUID(uuidString: item.uuid) else { return reject("'uuid' must be a beacon UUID") }
        guard let major = UInt16(exactly: item.major) else { return reject("'major' must be 0…65535") }
        guard let minor = UInt16(exactly: item.minor) else { return reject("'minor' must be 0…65535") }
        guard let event = SightingEvent(rawValue: item.event) else { return reject("'event' must be arrived, present, departed or passing") }
        guard let time = Timestamp.parse(item.time) else { return reject("'time' must be an RFC 3339 timestamp") }
        guard let firstSeen = Timestamp.parse(item.firstSeen) else { return reject("'firstSeen' must be an RFC 3339 timestamp") }
        guard let lastSeen = Timestamp.parse(item.lastSeen) else { return reject("'lastSeen' must be an RFC 3339 timestamp") }
        guard firstSeen <= lastSeen else { return reject("'firstSeen' is after 'lastSeen'") }
        guard Advertisement.rssiRange.contains(item.rssi) else { return reject("'rssi' must be \(Advertisement.rssiRange.lowerBound)…\(Advertisement.rssiRange.upperBound) dBm") }
        if let distance = item.distance, !(distance.isFinite && distance >= 0) { return reject("'distance' must be a non-negative number of metres") }
        guard zones.contains(item.zone) else { return reject("'zone' must be immediate, near, far or unknown") }
        let place: NewSighting.Place
        switch placeOf(item, now: now) {
        case let .success(valid): place = valid
        case let .failure(reason): return reject(reason.reason)
        }
        return .success(NewSighting(
            rawID: item.id, clientID: clientID.uuidString.lowercased(), beacon: BeaconID(uuid: beaconUUID, major: major, minor: minor),
            event: event, time: time, firstSeen: firstSeen, lastSeen: lastSeen, rssi: item.rssi,
            distance: item.distance, zone: item.zone, place: place))
    }

    /// The position fields: all absent (the enrolled place), `fix: none` alone, or `fix: gps` with
    /// latitude, longitude and fix time (accuracy optional), each in range.
    static func placeOf(_ item: SightingItem, now: Int64) -> Result<NewSighting.Place, Rejection> {
        func reject(_ reason: String) -> Result<NewSighting.Place, Rejection> { .failure(Rejection(id: item.id, reason: reason)) }
        let hasPosition = item.latitude != nil || item.longitude != nil || item.accuracy != nil || item.fixTime != nil
        switch item.fix {
        case nil:
            return hasPosition ? reject("a position needs 'fix': 'gps'") : .success(.enrolled)
        case "none":
            return hasPosition ? reject("'fix': 'none' carries no position; send 'fix': 'gps' with one") : .success(.none)
        case "gps":
            guard let latitude = item.latitude, latitude.isFinite, (-90...90).contains(latitude) else {
                return reject("'latitude' must be -90…90 degrees with 'fix': 'gps'")
            }
            guard let longitude = item.longitude, longitude.isFinite, (-180...180).contains(longitude) else {
                return reject("'longitude' must be -180…180 degrees with 'fix': 'gps'")
            }
            if let accuracy = item.accuracy, !(accuracy.isFinite && accuracy >= 0) {
                return reject("'accuracy' must be a non-negative number of metres")
            }
            guard let fixTime = item.fixTime.flatMap(Timestamp.parse) else { return reject("'fixTime' must be an RFC 3339 timestamp with 'fix': 'gps'") }
            guard fixTime <= now + fixTimeSkew else {
                return reject("'fixTime' is \((fixTime - now) / 1000) s ahead of the server's clock; is the sentinel's clock (or its GPS time) right?")
            }
            return .success(.gps(latitude: latitude, longitude: longitude, accuracy: item.accuracy, fixTime: fixTime))
        default:
            return reject("'fix' must be gps or none")
        }
    }
}
