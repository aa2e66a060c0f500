import BikebeaconAPI
import Foundation
import SQLKit

/// Every time an owner marks a bike missing (renewals too), with the tag, since when it was on the
/// bike and the police report's reference if one was given: what the operator reads in an abuse case
/// (`bikebeacon-server reads`). Kept apart from `bikes`, so deleting the bike does not delete it;
/// pruned after `ReadLog.retention`, except those of a bike still missing (the reference that put it there).
enum MissingReports {
    static func record(bike: Bike, owner: String, tagSince: Int64, policeReference: String?, now: Int64,
                       in db: any SQLDatabase) async throws {
        try await db.raw("""
            INSERT INTO missing_reports (id, bike_id, owner_id, beacon, beacon_since_ms, police_reference, time_ms)
            VALUES (\(bind: Tokens.id()), \(bind: bike.id), \(bind: owner), \(bind: bike.beacon.description), \(bind: tagSince),
              \(bind: policeReference), \(bind: now))
            """).run()
        try await db.raw("""
            DELETE FROM missing_reports WHERE time_ms < \(bind: now - ReadLog.retention)
              AND bike_id NOT IN (SELECT id FROM bikes WHERE missing_since_ms IS NOT NULL)
            """).run()
    }
}
