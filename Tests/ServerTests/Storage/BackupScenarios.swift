import BikebeaconAPI
import Foundation
import Logging
import SQLKit
import Testing
@testable import Server
import Subprocesses

/// `bikebeacon-server backup` / `restore`: what a community's admin relies on after a lost disk.
enum BackupScenarios {
    /// Sightings acknowledged before a backup began are in it, even while a sentinel keeps posting.
    static func backupWhilePosting(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-backup-\(UUID().uuidString).dump").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let mustHave = try await harness.run { client in
            let owner = try await client.owner("ann@example.org")
            let bike = try await client.bike(owner)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner).status == .ok)
            let acknowledged = Acknowledged()
            func post(_ index: Int) async throws {
                let id = UUID().uuidString.lowercased()
                let item = Fixture.sighting(id: id, event: index == 0 ? "arrived" : "present",
                                            time: "2026-11-21T10:\(String(format: "%02d", index / 60)):\(String(format: "%02d", index % 60))Z")
                let response = try await client.send(.post, "/v1/sightings", token: sentinel, json: Fixture.Batch(sightings: [item]))
                let result = try client.decode(SightingResult.self, response)
                #expect(response.status == .ok && result.accepted == 1, "\(String(buffer: response.body))")
                if result.accepted == 1 { await acknowledged.add(id) }
            }
            for index in 0..<20 { try await post(index) }
            let poster = Task { for index in 20..<80 { try await post(index) } }
            await Task.yield()
            let before = await acknowledged.startBackup()
            let summary = try await DatabaseBackup.backup(harness.database.url, to: file, logger: Harness.logger)
            try await poster.value
            #expect(summary.accounts == 1 && summary.bikes == 1 && summary.sightings >= before.count)
            return before
        }
        #expect(mustHave.count >= 20)

        let target = try await RestoreTarget.make(backend)
        defer { target.remove() }
        let restored = try await DatabaseBackup.restore(target.url, from: file, replacing: false, logger: Harness.logger)
        #expect(restored.accounts == 1 && restored.sightings >= mustHave.count)
        let database = try await BikebeaconServer.openDatabase(target.url, logger: Harness.logger, now: harness.options.now())
        let present = try await database.withSession { db in
            Set(try await db.raw("SELECT client_id FROM sightings").all().map { try $0.decode(column: "client_id", as: String.self) })
        }
        await database.shutdown()
        #expect(mustHave.isSubset(of: present), "lost acknowledged sightings: \(mustHave.subtracting(present).sorted())")

        // A second restore onto live data needs --replace: a slip must not erase a running community.
        await #expect(throws: BackupError.self) {
            try await DatabaseBackup.restore(target.url, from: file, replacing: false, logger: Harness.logger)
        }
        #expect(try await DatabaseBackup.restore(target.url, from: file, replacing: true, logger: Harness.logger).sightings == restored.sightings)
    }

    actor Acknowledged {
        private var ids: [String] = []
        private var started = false
        private var beforeStart: Set<String> = []
        func add(_ id: String) {
            ids.append(id)
            if !started { beforeStart.insert(id) }
        }
        func startBackup() -> Set<String> {
            started = true
            return beforeStart
        }
    }

    /// An empty place to restore into: a new SQLite path, or a new database on the test PostgreSQL.
    struct RestoreTarget {
        let url: DatabaseURL
        let remove: @Sendable () -> Void

        static func make(_ backend: Backend) async throws -> RestoreTarget {
            switch backend {
            case .sqlite:
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-restored-\(UUID().uuidString).sqlite").path
                return RestoreTarget(url: .sqlite(path: path)) {
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                }
            case .postgres:
                let admin = try #require(Backend.postgresURL, Backend.postgresSkipReason)
                let name = "bikebeacon_restore_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
                let adminDB = try Database(url: .postgres(url: admin), logger: Harness.logger, maxConnections: 1)
                // Generated here from a UUID, never from input.
                try await adminDB.withSession { try await $0.raw("CREATE DATABASE \(unsafeRaw: name)").run() }
                await adminDB.shutdown()
                return RestoreTarget(url: .postgres(url: try Harness.replacingDatabase(in: admin, with: name))) {
                    let drop = try? ChildProcess.spawn("/usr/bin/psql", [admin, "-qc", "DROP DATABASE IF EXISTS \(name)"])
                    drop?.wait()
                }
            }
        }
    }
}
