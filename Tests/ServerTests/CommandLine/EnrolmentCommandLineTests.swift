import Foundation
import Testing
import TestSupport

/// What `sentinels add` prints for `bikebeacon enroll`: the code, the command for the Pi, with
/// `--public-url` its URL as a QR code; the token stays the last line (scripts read it with `tail -1`).
@Suite struct EnrolmentCommandLineTests {
    @Test func addPrintsTheCodeTheURLAndItsQRCode() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-cli-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = ["--database", "sqlite://\(path)"]

        let added = try await run("bikebeacon-server", ["sentinels", "add", "--name", "Cafe Rosa", "--latitude", "52.37", "--longitude", "4.89",
                                                        "--public-url", "https://bikes.example.org/"] + database)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try #require(added.lines.last).hasPrefix("bbs_"))
        let codeLine = try #require(added.lines.first { $0.hasPrefix("its enrolment code (works once, until ") })
        let code = try #require(codeLine.split(separator: " ").last.map(String.init))
        #expect(code.range(of: "^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$", options: .regularExpression) != nil)
        #expect(added.lines.contains("on the sentinel run: sudo bikebeacon enroll https://bikes.example.org/enrol#\(code)"))
        // libqrencode is installed here: the QR code, square, in half blocks.
        let qr = added.lines.filter { $0.allSatisfy { "█▀▄ ".contains($0) } }
        #expect(qr.count >= 13 && Set(qr.map(\.count)).count == 1 && qr[0].count > 2 * qr.count - 3, "\(added.stdout)")

        let bare = try await run("bikebeacon-server", ["sentinels", "add", "--name", "Bus 12", "--roaming"] + database)
        #expect(bare.status == 0 && bare.stdout.contains("sudo bikebeacon enroll SERVER_URL ") && bare.stdout.contains("--public-url"))
        #expect(!bare.stdout.contains("█"))

        let rotated = try await run("bikebeacon-server", ["sentinels", "rotate", "Bus 12", "--public-url", "http://10.0.0.2:8080"] + database)
        #expect(rotated.status == 0 && rotated.stdout.contains("sudo bikebeacon enroll http://10.0.0.2:8080/enrol#"), "\(rotated.stderr)")
        #expect(try #require(rotated.lines.last).hasPrefix("bbs_"))

        let badURL = try await run("bikebeacon-server", ["sentinels", "add", "--name", "x", "--roaming", "--public-url", "bikes.example.org"] + database)
        #expect(badURL.status != 0 && badURL.stderr.contains("--public-url 'bikes.example.org' must be an absolute http or https URL"))
    }
}
