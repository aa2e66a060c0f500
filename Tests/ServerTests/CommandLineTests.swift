import Foundation
import Testing
import TestSupport

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

        let listed = try await run("bikebeacon-server", ["sentinels", "list"] + database)
        #expect(listed.lines == ["name\tlatitude\tlongitude\tstatus", "garage\t51.5\t-0.12\tactive"])
        #expect(!listed.stdout.contains(token))

        #expect(try await run("bikebeacon-server", ["sentinels", "revoke", "garage"] + database).status == 0)
        #expect(try await run("bikebeacon-server", ["sentinels", "list"] + database).lines.last == "garage\t51.5\t-0.12\trevoked")
        let missing = try await run("bikebeacon-server", ["sentinels", "revoke", "nobody"] + database)
        #expect(missing.status != 0 && missing.stderr.contains("no sentinel named 'nobody'"))

        let badURL = try await run("bikebeacon-server", ["sentinels", "list", "--database", "mysql://x"])
        #expect(badURL.status != 0 && badURL.stderr.contains("not a database URL"))
    }
}
