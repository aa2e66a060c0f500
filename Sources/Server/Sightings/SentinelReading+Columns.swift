import BikebeaconAPI
import SQLKit

/// A sentinel's reading stored beside its heartbeat in `sentinel_health`, so an estimate on ingest joins
/// four numbers instead of decoding each contributing sentinel's heartbeat JSON (#44's ingest cost).
extension SentinelReading {
    static let columns = ["stamp_offset_s", "calibration", "exponent", "near_exponent"]

    var values: [any Encodable & Sendable] {
        [stampOffset, pathLoss?.calibration.rawValue, pathLoss?.exponent, pathLoss?.nearFieldExponent]
    }

    /// `column = value, …` for an UPDATE that stores a heartbeat.
    var assignments: SQLQueryString {
        zip(Self.columns, values).map { column, value in "\(ident: column) = \(bind: value)" as SQLQueryString }
            .joined(separator: ", ")
    }

    /// From a row holding `columns` (a LEFT JOIN's NULLs: a sentinel that never sent a heartbeat, read as uncalibrated
    /// on the server's clock). A calibration this server does not know reads as none.
    init(row: any SQLRow) throws {
        let calibration = try row.decodeOptional(column: "calibration", as: String.self).flatMap(SentinelPathLoss.Calibration.init(rawValue:))
        let exponent = try row.decodeOptional(column: "exponent", as: Double.self), near = try row.decodeOptional(column: "near_exponent", as: Double.self)
        let pathLoss: SentinelPathLoss? = if let calibration, let exponent, let near {
            SentinelPathLoss(calibration: calibration, exponent: exponent, nearFieldExponent: near)
        } else {
            nil
        }
        self.init(stampOffset: try row.decodeOptional(column: "stamp_offset_s", as: Double.self), pathLoss: pathLoss)
    }

    /// Migration 170's code: the columns for heartbeats stored before them, read from their JSON once.
    @Sendable static func backfill(in db: any SQLDatabase) async throws {
        for row in try await db.raw("SELECT sentinel_id, heartbeat FROM sentinel_health").all() {
            guard let reading = SentinelReading(heartbeat: try row.decode(column: "heartbeat", as: String.self)) else { continue }
            try await db.raw("""
                UPDATE sentinel_health SET \(reading.assignments) WHERE sentinel_id = \(bind: try row.decode(column: "sentinel_id", as: String.self))
                """).run()
        }
    }
}
