import Beacon
import BikebeaconAPI
import SQLKit

/// The bike a found tag belongs to, and the finder's message to its owner.
struct FoundTagStore: Sendable {
    let database: Database

    struct FoundBike: Sendable {
        var id: String
        var ownerID: String
        var name: String
        /// A report's case seals the bike now (`AbuseStore`).
        var sealed: Bool
    }

    func bike(beacon: BeaconID) async throws -> FoundBike? {
        try await database.withSession { db in
            guard let row = try await db.raw("""
                SELECT id, owner_id, name, sealed_case FROM bikes
                WHERE beacon_uuid = \(bind: beacon.uuid.uuidString) AND beacon_major = \(bind: Int(beacon.major))
                  AND beacon_minor = \(bind: Int(beacon.minor))
                """).first() else { return nil }
            return FoundBike(id: try row.decode(column: "id", as: String.self), ownerID: try row.decode(column: "owner_id", as: String.self),
                             name: try row.decode(column: "name", as: String.self),
                             sealed: try row.decode(column: "sealed_case", as: String?.self) != nil)
        }
    }

    /// Queues the finder's message to the owner on every channel they have on (push and email), past the
    /// sightings' no-spam window: the per-tag limit already bounds it.
    func relay(to bike: FoundBike, message: String, contact: String, dispatcher: NotificationDispatcher, now: Int64) async throws {
        let notification = OwnerNotification(event: .found, bikeId: bike.id, bikeName: bike.name, ownerId: bike.ownerID, place: nil,
                                             latitude: nil, longitude: nil, time: Timestamp.format(milliseconds: now), zone: nil,
                                             message: message, contact: contact.isEmpty ? nil : contact)
        try await database.transaction { db in
            _ = try await dispatcher.queue(notification, now: now, in: db)
        }
    }
}
