import BikebeaconAPI
import Foundation
import Testing
import TestSupport
@testable import Server

/// `bikebeacon-server sentinels add/list/revoke`, run as the operator would.
@Suite struct CommandLineTests {
    @Test func enrolListRevoke() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-cli-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = ["--database", "sqlite://\(path)"]

        let added = try await run("bikebeacon-server", ["sentinels", "add", "--name", "garage", "--latitude", "51.5", "--longitude", "-0.12"] + database)
        #expect(added.status == 0, "\(added.stderr)")
        let token = try #require(added.lines.last)
        #expect(token.hasPrefix("bbs_") && token.count > 40)

        let duplicate = try await run("bikebeacon-server", ["sentinels", "add", "--name", "garage", "--latitude", "1", "--longitude", "1"] + database)
        #expect(duplicate.status != 0 && duplicate.stderr.contains("exists already"))
        let badLatitude = try await run("bikebeacon-server", ["sentinels", "add", "--name", "x", "--latitude", "91", "--longitude", "1"] + database)
        #expect(badLatitude.status != 0 && badLatitude.stderr.contains("latitude"))
        let badEnrolment = try await run("bikebeacon-server", ["sentinels", "add", "--name", "x", "--latitude", "1", "--longitude", "1",
                                                               "--enrolled-at", "yesterday"] + database)
        #expect(badEnrolment.status != 0 && badEnrolment.stderr.contains("--enrolled-at must be an RFC 3339 time"))
        let reserved = try await run("bikebeacon-server", ["sentinels", "add", "--name", "A private sentinel", "--latitude", "1", "--longitude", "1"] + database)
        #expect(reserved.status != 0 && reserved.stderr.contains("what others see of a home sentinel"))

        let listed = try await run("bikebeacon-server", ["sentinels", "list"] + database)
        #expect(listed.lines == [SentinelHealthReport.listHeader, "garage\t51.5\t-0.12\tactive\tsilent\t-\tnever\t-\t-\t-\t-\tno heartbeat yet"])
        #expect(!listed.stdout.contains(token))

        // A heartbeat (as the server stores it) shows in the health columns and in `show`.
        var beat = SentinelHealthTests.healthy
        beat.scanning = false
        beat.lastError = "BlueZ did not start scanning: retrying"
        let now = ServerOptions.wallClock()
        try await Database.using(.sqlite(path: path), logger: Harness.logger, migrateAt: nil) { db in
            let garage = try #require(try await SentinelStore(database: db).list().first)
            try await SentinelHealthStore(database: db).record(beat, from: garage, now: now - 90_000)
        }
        let health = try await run("bikebeacon-server", ["sentinels", "list"] + database)
        let columns = try #require(health.lines.last).split(separator: "\t").map(String.init)
        #expect(columns.count == 12 && columns[3...4] == ["active", "degraded"] && columns[6] == "1 min ago" && columns[7] == "0.1.0"
            && columns[8] == "900" && columns[9] == "0" && columns[10] == "+0 s" && columns[11] == "not scanning", "\(health.stdout)")
        let shown = try await run("bikebeacon-server", ["sentinels", "show", "garage"] + database)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.lines.contains { $0.hasPrefix("state: degraded since ") && $0.hasSuffix("(not scanning)") }, "\(shown.stdout)")
        #expect(shown.lines.contains("adapter: present, powered, not scanning"))
        #expect(shown.lines.contains { $0.hasSuffix(" BlueZ did not start scanning: retrying") })
        #expect(shown.lines.last?.hasSuffix("-> degraded\tnot scanning") == true)
        #expect(try await run("bikebeacon-server", ["sentinels", "show", "nobody"] + database).stderr.contains("no sentinel named 'nobody'"))

        #expect(try await run("bikebeacon-server", ["sentinels", "revoke", "garage"] + database).status == 0)
        let revokedLine = try await run("bikebeacon-server", ["sentinels", "list"] + database).lines.last
        #expect(revokedLine?.hasPrefix("garage\t51.5\t-0.12\trevoked\tretired\t") == true && revokedLine?.hasSuffix("\trevoked by the operator") == true)
        let history = try await run("bikebeacon-server", ["sentinels", "show", "garage"] + database).lines.suffix(2)
        #expect(history.first?.contains("degraded -> retired\trevoked by the operator") == true, "\(history)")
        let missing = try await run("bikebeacon-server", ["sentinels", "revoke", "nobody"] + database)
        #expect(missing.status != 0 && missing.stderr.contains("no sentinel named 'nobody'"))

        let noAccount = try await run("bikebeacon-server", ["operators", "add", "olga@example.org"] + database)
        #expect(noAccount.status != 0 && noAccount.stderr.contains("no account with the e-mail 'olga@example.org'"), "\(noAccount.stderr)")
        #expect(try await run("bikebeacon-server", ["operators", "list"] + database).lines.isEmpty)

        let badURL = try await run("bikebeacon-server", ["sentinels", "list", "--database", "mysql://x"])
        #expect(badURL.status != 0 && badURL.stderr.contains("not a database URL"))
    }

    /// The coverage map's opt-in: at enrolment, changed later, refused for a roaming sentinel.
    @Test func coverageMapOptIn() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-cli-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = ["--database", "sqlite://\(path)"]
        let added = try await run("bikebeacon-server", ["sentinels", "add", "--name", "Cafe Rosa", "--latitude", "52.09", "--longitude", "5.12",
                                                        "--on-coverage-map"] + database)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await run("bikebeacon-server", ["sentinels", "add", "--name", "Station", "--latitude", "52.1", "--longitude", "5.1"] + database).status == 0)
        let roaming = try await run("bikebeacon-server", ["sentinels", "add", "--name", "Bus", "--roaming", "--on-coverage-map"] + database)
        #expect(roaming.status != 0 && roaming.stderr.contains("'Bus' is a roaming sentinel: it has no place to show on the coverage map"), "\(roaming.stderr)")

        func onTheMap() async throws -> [String] {
            try await Database.using(.sqlite(path: path), logger: Harness.logger, migrateAt: nil) { db in
                try await CoverageMapRoutes.sentinels(in: db).map(\.name)
            }
        }
        #expect(try await onTheMap() == ["Cafe Rosa"])
        let on = try await run("bikebeacon-server", ["sentinels", "coverage-map", "Station", "on"] + database)
        #expect(on.status == 0 && on.lines == ["sentinel 'Station' is on the coverage map"], "\(on.stderr)")
        #expect(try await run("bikebeacon-server", ["sentinels", "coverage-map", "Cafe Rosa", "off"] + database).status == 0)
        #expect(try await onTheMap() == ["Station"])
        #expect(try await run("bikebeacon-server", ["sentinels", "show", "Station"] + database).lines.contains("kind: public, on the coverage map"))
        #expect(try await run("bikebeacon-server", ["sentinels", "show", "Cafe Rosa"] + database).lines.contains("kind: public, not on the coverage map"))
        let bad = try await run("bikebeacon-server", ["sentinels", "coverage-map", "Station", "maybe"] + database)
        #expect(bad.status != 0 && bad.stderr.contains("maybe"), "\(bad.stderr)")
        let unknown = try await run("bikebeacon-server", ["sentinels", "coverage-map", "Nowhere", "on"] + database)
        #expect(unknown.status != 0 && unknown.stderr.contains("no sentinel named 'Nowhere'"))
    }
}

/// `backup`, `restore` and `sentinels rotate` as the operator runs them.
@Suite struct BackupCommandLineTests {
    @Test func backupRestoreAndRotate() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let live = ["--database", "sqlite://\(dir.path)/live.sqlite"]
        let added = try await run("bikebeacon-server", ["sentinels", "add", "--name", "cafe", "--latitude", "52.09", "--longitude", "5.12"] + live)
        let oldToken = try #require(added.lines.last)

        let rotated = try await run("bikebeacon-server", ["sentinels", "rotate", "cafe"] + live)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let newToken = try #require(rotated.lines.last)
        #expect(newToken.hasPrefix("bbs_") && newToken != oldToken)
        #expect(try await run("bikebeacon-server", ["sentinels", "rotate", "nobody"] + live).stderr.contains("no sentinel named 'nobody'"))

        let backup = dir.appendingPathComponent("cafe.backup").path
        let made = try await run("bikebeacon-server", ["backup", backup] + live)
        #expect(made.status == 0 && made.stdout.contains("0 account(s)"), "\(made.stderr)")
        let again = try await run("bikebeacon-server", ["backup", backup] + live)
        #expect(again.status != 0 && again.stderr.contains("already exists"))
        let nothing = try await run("bikebeacon-server", ["backup", dir.appendingPathComponent("x").path, "--database", "sqlite://\(dir.path)/none.sqlite"])
        #expect(nothing.status != 0 && nothing.stderr.contains("there is no database"))
        #expect(!FileManager.default.fileExists(atPath: "\(dir.path)/none.sqlite"))

        let notABackup = dir.appendingPathComponent("notes.txt").path
        try "hello".write(toFile: notABackup, atomically: true, encoding: .utf8)
        let refused = try await run("bikebeacon-server", ["restore", notABackup, "--database", "sqlite://\(dir.path)/new.sqlite"])
        #expect(refused.status != 0 && refused.stderr.contains("nothing was restored"), "\(refused.stderr)")
        let overLive = try await run("bikebeacon-server", ["restore", backup] + live)
        #expect(overLive.status != 0 && overLive.stderr.contains("--replace"))

        let restored = try await run("bikebeacon-server", ["restore", backup, "--database", "sqlite://\(dir.path)/new.sqlite"])
        #expect(restored.status == 0, "\(restored.stderr)")
        let listed = try await run("bikebeacon-server", ["sentinels", "list", "--database", "sqlite://\(dir.path)/new.sqlite"])
        #expect(listed.lines.last?.hasPrefix("cafe\t52.09\t5.12\tactive\t") == true)
        // The restored sentinel answers to the rotated token only.
        let database = try Database(url: .sqlite(path: "\(dir.path)/new.sqlite"), logger: Harness.logger)
        let sentinels = SentinelStore(database: database)
        let byNew = try await sentinels.find(tokenDigest: Tokens.digest(newToken))
        let byOld = try await sentinels.find(tokenDigest: Tokens.digest(oldToken))
        await database.shutdown()
        #expect(byNew?.name == "cafe" && byOld == nil)
    }
}

/// `sightings show REF`: the operator reads a home sentinel's sighting as heard, for the police.
@Suite struct SightingsCommandLineTests {
    @Test func showPrintsTheExactPlaceOfAPrivateSighting() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-cli-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let options = Harness.testOptions()
        let database = try await BikebeaconServer.openDatabase(.sqlite(path: path), logger: Harness.logger, now: options.now())
        let harness = Harness(database: database, options: options) { await database.shutdown() }
        let reference = try await harness.run { client in
            _ = try await client.owner("bob@example.org")
            let (_, home) = try await SentinelStore(database: database).add(name: "Bob's garage, 12 Elm St", latitude: 52.123456, longitude: 4.654321,
                                                                            ownerEmail: "bob@example.org", now: Fixture.enrolled)
            let mallory = try await client.owner("mallory@example.org")
            let bike = try await client.bike(mallory, name: "Decoy")
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: mallory)
            _ = try await client.send(.post, "/v1/sightings", token: home, json: Fixture.Batch(sightings: [Fixture.sighting()]))
            let page = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: mallory))
            #expect(page.sightings.first?.sentinel == "a private sentinel")
            return try #require(page.sightings.first?.id)
        }
        let shown = try await run("bikebeacon-server", ["sightings", "show", reference, "--database", "sqlite://\(path)"])
        #expect(shown.status == 0, "\(shown.stderr)")
        for expected in ["sighting \(reference)", "sentinel: Bob's garage, 12 Elm St (the home sentinel of bob@example.org)",
                         "exact position: 52.123456, 4.654321", "owner mallory@example.org", "event: arrived at 2026-11-21T10:00:00.000Z"] {
            #expect(shown.stdout.contains(expected), "lacks \(expected): \(shown.stdout)")
        }
        let unknown = try await run("bikebeacon-server", ["sightings", "show", "nope", "--database", "sqlite://\(path)"])
        #expect(unknown.status != 0 && unknown.stderr.contains("no sighting with the reference 'nope'"))
    }
}
