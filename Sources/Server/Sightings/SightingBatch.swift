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
            decoded = .failure(Rejection(id: id, reason: "not a sighting: \(ErrorMiddleware<AppContext>.describe(error))",
                                         field: Self.field(of: error)))
        }
    }

    func encode(to encoder: any Encoder) throws {
        if case let .success(item) = decoded { try item.encode(to: encoder) }
    }

    private struct IDOnly: Decodable { var id: String }

    /// The item's field a decoding error is about, when it names one.
    static func field(of error: DecodingError) -> String? {
        switch error {
        case let .keyNotFound(key, _): key.stringValue
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            context.codingPath.last?.stringValue
        @unknown default: nil
        }
    }
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

/// What the server knows of the sentinel that sent a batch, for the checks that depend on it.
struct SightingSource: Sendable, Equatable {
    /// When the sentinel was enrolled: nothing it reports can be older.
    var enrolledAt: Int64
    /// Only a roaming sentinel has a position of its own to send.
    var roaming: Bool

    init(enrolledAt: Int64, roaming: Bool) {
        self.enrolledAt = enrolledAt
        self.roaming = roaming
    }

    init(_ sentinel: Sentinel) {
        self.init(enrolledAt: sentinel.createdMilliseconds, roaming: sentinel.latitude == nil)
    }
}

/// Checks each item of a batch. Pure: the server's clock is an input, no database.
///
/// A sighting is evidence, so its times must be possible: none later than the server's clock
/// plus `skew` (two clocks never agree exactly), none earlier than the sentinel's enrolment less
/// `skew`, and in the order the sentinel makes them: first reading, last reading, then the
/// decision (`firstSeen ≤ lastSeen ≤ time`; a departure or a pass is decided after the last
/// reading). Position fields come only from a roaming sentinel. Each refusal names its field.
enum SightingValidation {
    static let zones = Set(SightingZones.all)
    /// How far a sentinel's clock may be off the server's, milliseconds.
    static let skew: Int64 = 120_000

    static func validate(_ items: [LenientSightingItem], from source: SightingSource, now: Int64) -> (valid: [NewSighting], rejected: [Rejection]) {
        var valid: [NewSighting] = []
        var rejected: [Rejection] = []
        var seen = Set<String>()
        for lenient in items {
            switch lenient.decoded.flatMap({ validate($0, from: source, now: now) }) {
            case let .success(sighting):
                // A repeated id inside one batch is the same sighting sent twice.
                if seen.insert(sighting.clientID).inserted { valid.append(sighting) }
            case let .failure(rejection):
                rejected.append(rejection)
            }
        }
        return (valid, rejected)
    }

    static func validate(_ item: SightingItem, from source: SightingSource, now: Int64) -> Result<NewSighting, Rejection> {
        func reject(_ field: String, _ reason: String) -> Result<NewSighting, Rejection> {
            .failure(Rejection(id: item.id, reason: reason, field: field))
        }
        guard let clientID = UUID(uuidString: item.id) else { return reject("id", "'id' must be a UUID") }
        guard let beaconUUID = UUID(uuidString: item.uuid) else { return reject("uuid", "'uuid' must be a beacon UUID") }
        guard let major = UInt16(exactly: item.major) else { return reject("major", "'major' must be 0…65535") }
        guard let minor = UInt16(exactly: item.minor) else { return reject("minor", "'minor' must be 0…65535") }
        guard let event = SightingEvent(rawValue: item.event) else { return reject("event", "'event' must be arrived, present, departed or passing") }
        let time: Int64, firstSeen: Int64, lastSeen: Int64
        do throws(Rejection) {
            time = try checkTime("time", item.time, id: item.id, from: source, now: now).get()
            firstSeen = try checkTime("firstSeen", item.firstSeen, id: item.id, from: source, now: now).get()
            lastSeen = try checkTime("lastSeen", item.lastSeen, id: item.id, from: source, now: now).get()
        } catch {
            return .failure(error)
        }
        guard firstSeen <= lastSeen else { return reject("firstSeen", "'firstSeen' is after 'lastSeen'") }
        guard lastSeen <= time else { return reject("lastSeen", "'lastSeen' is after 'time' (the sighting cannot be decided before its last reading)") }
        guard Advertisement.rssiRange.contains(item.rssi) else {
            return reject("rssi", "'rssi' must be \(Advertisement.rssiRange.lowerBound)…\(Advertisement.rssiRange.upperBound) dBm")
        }
        if let distance = item.distance, !(distance.isFinite && distance >= 0) { return reject("distance", "'distance' must be a non-negative number of metres") }
        guard zones.contains(item.zone) else { return reject("zone", "'zone' must be immediate, near, far or unknown") }
        return placeOf(item, from: source, now: now).map { place in
            NewSighting(
                rawID: item.id, clientID: clientID.uuidString.lowercased(), beacon: BeaconID(uuid: beaconUUID, major: major, minor: minor),
                event: event, time: time, firstSeen: firstSeen, lastSeen: lastSeen, rssi: item.rssi,
                distance: item.distance, zone: item.zone, place: place)
        }
    }

    /// A timestamp the sentinel could have made: parseable, not ahead of the server, not before enrolment.
    static func checkTime(_ field: String, _ text: String, id: String, from source: SightingSource, now: Int64) -> Result<Int64, Rejection> {
        func reject(_ reason: String) -> Result<Int64, Rejection> { .failure(Rejection(id: id, reason: reason, field: field)) }
        guard let time = Timestamp.parse(text) else { return reject("'\(field)' must be an RFC 3339 timestamp") }
        guard time <= now + skew else {
            return reject("'\(field)' is \((time - now) / 1000) s ahead of the server's clock (at most \(skew / 1000) s allowed); is the sentinel's clock (or its GPS time) right?")
        }
        guard time >= source.enrolledAt - skew else {
            return reject("'\(field)' is before this sentinel was enrolled (\(Timestamp.format(milliseconds: source.enrolledAt))); is the sentinel's clock (or its GPS time) right?")
        }
        return .success(time)
    }

    /// The position fields: all absent (the enrolled place), `fix: none` alone, or `fix: gps` with
    /// latitude, longitude and fix time (accuracy optional), each in range; any of them only from a roaming sentinel.
    static func placeOf(_ item: SightingItem, from source: SightingSource, now: Int64) -> Result<NewSighting.Place, Rejection> {
        func reject(_ field: String, _ reason: String) -> Result<NewSighting.Place, Rejection> {
            .failure(Rejection(id: item.id, reason: reason, field: field))
        }
        let hasPosition = item.latitude != nil || item.longitude != nil || item.accuracy != nil || item.fixTime != nil
        if !source.roaming, item.fix != nil || hasPosition {
            return reject(item.fix != nil ? "fix" : "latitude",
                          "this sentinel is enrolled at a fixed place, so it sends no position fields ('fix', 'latitude', 'longitude', 'accuracy', 'fixTime'); enrol it without a place to make it roaming")
        }
        switch item.fix {
        case nil:
            return hasPosition ? reject("fix", "a position needs 'fix': 'gps'") : .success(.enrolled)
        case "none":
            return hasPosition ? reject("fix", "'fix': 'none' carries no position; send 'fix': 'gps' with one") : .success(.none)
        case "gps":
            guard let latitude = item.latitude, latitude.isFinite, (-90...90).contains(latitude) else {
                return reject("latitude", "'latitude' must be -90…90 degrees with 'fix': 'gps'")
            }
            guard let longitude = item.longitude, longitude.isFinite, (-180...180).contains(longitude) else {
                return reject("longitude", "'longitude' must be -180…180 degrees with 'fix': 'gps'")
            }
            if let accuracy = item.accuracy, !(accuracy.isFinite && accuracy >= 0) {
                return reject("accuracy", "'accuracy' must be a non-negative number of metres")
            }
            guard let fixText = item.fixTime else { return reject("fixTime", "'fixTime' must be an RFC 3339 timestamp with 'fix': 'gps'") }
            return checkTime("fixTime", fixText, id: item.id, from: source, now: now).map {
                .gps(latitude: latitude, longitude: longitude, accuracy: item.accuracy, fixTime: $0)
            }
        default:
            return reject("fix", "'fix' must be gps or none")
        }
    }
}
