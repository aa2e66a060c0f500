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
}

/// Checks each item of a batch. Pure: no clock, no database.
enum SightingValidation {
    static let zones = Set(SightingZones.all)

    static func validate(_ items: [LenientSightingItem]) -> (valid: [NewSighting], rejected: [Rejection]) {
        var valid: [NewSighting] = []
        var rejected: [Rejection] = []
        var seen = Set<String>()
        for lenient in items {
            switch lenient.decoded.flatMap(validate) {
            case let .success(sighting):
                // A repeated id inside one batch is the same sighting sent twice.
                if seen.insert(sighting.clientID).inserted { valid.append(sighting) }
            case let .failure(rejection):
                rejected.append(rejection)
            }
        }
        return (valid, rejected)
    }

    static func validate(_ item: SightingItem) -> Result<NewSighting, Rejection> {
        func reject(_ reason: String) -> Result<NewSighting, Rejection> { .failure(Rejection(id: item.id, reason: reason)) }
        guard let clientID = UUID(uuidString: item.id) else { return reject("'id' must be a UUID") }
        guard let beaconUUID = UUID(uuidString: item.uuid) else { return reject("'uuid' must be a beacon UUID") }
        guard let major = UInt16(exactly: item.major) else { return reject("'major' must be 0…65535") }
        guard let minor = UInt16(exactly: item.minor) else { return reject("'minor' must be 0…65535") }
        guard let event = SightingEvent(rawValue: item.event) else { return reject("'event' must be arrived, present or departed") }
        guard let time = Timestamp.parse(item.time) else { return reject("'time' must be an RFC 3339 timestamp") }
        guard let firstSeen = Timestamp.parse(item.firstSeen) else { return reject("'firstSeen' must be an RFC 3339 timestamp") }
        guard let lastSeen = Timestamp.parse(item.lastSeen) else { return reject("'lastSeen' must be an RFC 3339 timestamp") }
        guard firstSeen <= lastSeen else { return reject("'firstSeen' is after 'lastSeen'") }
        guard Advertisement.rssiRange.contains(item.rssi) else { return reject("'rssi' must be \(Advertisement.rssiRange.lowerBound)…\(Advertisement.rssiRange.upperBound) dBm") }
        if let distance = item.distance, !(distance.isFinite && distance >= 0) { return reject("'distance' must be a non-negative number of metres") }
        guard zones.contains(item.zone) else { return reject("'zone' must be immediate, near, far or unknown") }
        return .success(NewSighting(
            rawID: item.id, clientID: clientID.uuidString.lowercased(), beacon: BeaconID(uuid: beaconUUID, major: major, minor: minor),
            event: event, time: time, firstSeen: firstSeen, lastSeen: lastSeen, rssi: item.rssi,
            distance: item.distance, zone: item.zone))
    }
}
