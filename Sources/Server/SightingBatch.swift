import Beacon
import Foundation

/// One sighting as a sentinel sends it. Every field is optional here so that one bad item is
/// rejected on its own, with a reason, instead of failing the whole batch.
struct SightingItemJSON: Codable, Sendable {
    var id: String?
    var uuid: String?
    var major: Int?
    var minor: Int?
    var event: String?
    var time: String?
    var firstSeen: String?
    var lastSeen: String?
    var rssi: Int?
    var distance: Double?
    var zone: String?
}

struct SightingBatchJSON: Codable, Sendable {
    var sightings: [LenientItem]

    /// Decodes an item or records that it was not even an object of the right shape.
    struct LenientItem: Codable, Sendable {
        var item: SightingItemJSON?
        init(from decoder: any Decoder) throws {
            item = try? SightingItemJSON(from: decoder)
        }
        func encode(to encoder: any Encoder) throws { try item.encode(to: encoder) }
    }
}

struct Rejection: Error, Codable, Sendable, Equatable {
    var id: String
    var reason: String
}

struct SightingResultJSON: Codable, Sendable {
    var accepted: Int
    var duplicates: Int
    var rejected: [Rejection]
}

enum SightingEvent: String, Codable, Sendable, CaseIterable {
    case arrived, present, departed

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
    static let maxBatch = 500
    static let zones: Set<String> = ["immediate", "near", "far", "unknown"]

    static func validate(_ items: [SightingBatchJSON.LenientItem]) -> (valid: [NewSighting], rejected: [Rejection]) {
        var valid: [NewSighting] = []
        var rejected: [Rejection] = []
        var seen = Set<String>()
        for lenient in items {
            guard let item = lenient.item else {
                rejected.append(Rejection(id: "", reason: "not a sighting object with the documented field types"))
                continue
            }
            switch validate(item) {
            case let .success(sighting):
                // A repeated id inside one batch is the same sighting sent twice.
                if seen.insert(sighting.clientID).inserted { valid.append(sighting) }
            case let .failure(rejection):
                rejected.append(rejection)
            }
        }
        return (valid, rejected)
    }

    static func validate(_ item: SightingItemJSON) -> Result<NewSighting, Rejection> {
        let rawID = item.id ?? ""
        func reject(_ reason: String) -> Result<NewSighting, Rejection> { .failure(Rejection(id: rawID, reason: reason)) }
        guard let uuidText = item.id, let clientID = UUID(uuidString: uuidText) else { return reject("'id' must be a UUID") }
        guard let beaconText = item.uuid, let beaconUUID = UUID(uuidString: beaconText) else { return reject("'uuid' must be a beacon UUID") }
        guard let majorValue = item.major, let major = UInt16(exactly: majorValue) else { return reject("'major' must be 0…65535") }
        guard let minorValue = item.minor, let minor = UInt16(exactly: minorValue) else { return reject("'minor' must be 0…65535") }
        guard let eventText = item.event, let event = SightingEvent(rawValue: eventText) else {
            return reject("'event' must be arrived, present or departed")
        }
        guard let timeText = item.time, let time = Timestamp.parse(timeText) else { return reject("'time' must be an RFC 3339 timestamp") }
        guard let firstText = item.firstSeen, let firstSeen = Timestamp.parse(firstText) else { return reject("'firstSeen' must be an RFC 3339 timestamp") }
        guard let lastText = item.lastSeen, let lastSeen = Timestamp.parse(lastText) else { return reject("'lastSeen' must be an RFC 3339 timestamp") }
        guard firstSeen <= lastSeen else { return reject("'firstSeen' is after 'lastSeen'") }
        guard let rssi = item.rssi, (-127...20).contains(rssi) else { return reject("'rssi' must be -127…20 dBm") }
        if let distance = item.distance, !(distance.isFinite && distance >= 0) { return reject("'distance' must be a non-negative number of metres") }
        guard let zone = item.zone, zones.contains(zone) else { return reject("'zone' must be immediate, near, far or unknown") }
        return .success(NewSighting(
            rawID: uuidText, clientID: clientID.uuidString.lowercased(), beacon: BeaconID(uuid: beaconUUID, major: major, minor: minor),
            event: event, time: time, firstSeen: firstSeen, lastSeen: lastSeen, rssi: rssi,
            distance: item.distance, zone: zone))
    }
}
