import Beacon
import SQLKit
import Synchronization

/// The missing bikes by beacon, as of one version of the missing list: the sighting ingest finds a batch's bikes
/// here instead of a query per batch (#36: without the query, PostgreSQL's ingest went from 0.43–0.48 of the raw
/// insert rate to 0.50–0.54).
///
/// Read whole once per version (`SentinelPollCache.missingVersion`, so a change made on this server is seen by its
/// next batch, one made elsewhere when its `NOTIFY` arrives or within a second), one read shared by the batches
/// that arrive meanwhile. Only as a yes: a beacon not here is looked up in the database (`SightingStore`), so a
/// bike marked missing a moment ago is never refused from a stale copy. What the copy can do is take a sighting
/// of a bike recovered on another replica less than a second before.
final class MissingBikeIndex: Sendable {
    private let held = Mutex<(version: Int64, read: Task<[BeaconID: SightingStore.MissingBikeRow], any Error>)?>(nil)

    func bikes(version: Int64, in database: Database) async throws -> [BeaconID: SightingStore.MissingBikeRow] {
        try await bikes(version: version) { try await Self.read(database) }
    }

    /// The bikes of `version` or a later one, from `read` unless a read of such a version is held or under way.
    func bikes(version: Int64, read reading: @escaping @Sendable () async throws -> [BeaconID: SightingStore.MissingBikeRow])
        async throws -> [BeaconID: SightingStore.MissingBikeRow] {
        let read = held.withLock { held in
            if let held, held.version >= version { return held.read }
            let read = Task { try await reading() }
            held = (version, read)
            return read
        }
        do {
            return try await read.value
        } catch {
            held.withLock { if $0?.version == version { $0 = nil } }
            throw error
        }
    }

    private static func read(_ database: Database) async throws -> [BeaconID: SightingStore.MissingBikeRow] {
        try await database.withSession { db in
            try await SightingStore.missingBikes(db.raw("""
                SELECT id, owner_id, name, beacon_uuid, beacon_major, beacon_minor FROM bikes WHERE missing_since_ms IS NOT NULL
                """).all())
        }
    }
}
