import BikebeaconAPI
import Foundation
import SQLKit

/// Every time an owner marks a bike missing (renewals too), with the tag, since when it was on the
/// bike and the police report's reference if one was given: what the operator reads in an abuse case
/// (`bikebeacon-server reads`). Kept apart from `bikes`, so deleting the bike does not delete it;
/// pruned after `ReadLog.retention`, except those of a bike still missing (the reference that put it there).
enum MissingReports {
    /// `passedHold`: the reference let a tag under the new-tag hold onto the list (`reads` marks it; the operator is mailed).
    /// Stored as 1 until the operator's notice is claimed, then 2.
    static func record(bike: Bike, owner: String, tagSince: Int64, policeReference: String?, passedHold: Bool = false, now: Int64,
                       in db: any SQLDatabase) async throws {
        try await db.raw("""
            INSERT INTO missing_reports (id, bike_id, owner_id, beacon, beacon_since_ms, police_reference, time_ms, passed_hold)
            VALUES (\(bind: Tokens.id()), \(bind: bike.id), \(bind: owner), \(bind: bike.beacon.description), \(bind: tagSince),
              \(bind: policeReference), \(bind: now), \(bind: passedHold ? 1 : 0))
            """).run()
        try await db.raw("""
            DELETE FROM missing_reports WHERE time_ms < \(bind: now - ReadLog.retention)
              AND bike_id NOT IN (SELECT id FROM bikes WHERE missing_since_ms IS NOT NULL)
            """).run()
    }

    /// The bike's report that let a tag under the new-tag hold onto the list and whose operator notice is still to go
    /// (`PoliceReferenceNotice`), claimed so that it goes once, whichever replica or request asks (`passed_hold` 1 → 2).
    static func claimPassedHold(bikeID: String, database: Database) async throws -> ReadLogExport.Report? {
        try await database.withSession { db in
            guard let row = try await db.raw("""
                UPDATE missing_reports SET passed_hold = 2 WHERE bike_id = \(bind: bikeID) AND passed_hold = 1
                RETURNING beacon, beacon_since_ms, police_reference, time_ms
                """).first() else { return nil }
            return ReadLogExport.Report(bikeID: bikeID, time: try row.decode(column: "time_ms", as: Int64.self),
                                        tag: try row.decode(column: "beacon", as: String.self),
                                        tagSince: try row.decode(column: "beacon_since_ms", as: Int64.self),
                                        policeReference: try row.decode(column: "police_reference", as: String?.self), passedHold: true)
        }
    }
}
