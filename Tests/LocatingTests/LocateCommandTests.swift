import Benchmarks
import Foundation
import Locating
import TestSupport
import Testing

/// `bikebeacon locate` as a user runs it, on straight_04 written out as RECEIVERS.csv and READINGS.csv.
struct LocateCommandTests {
    /// `grid`: added to every place, receivers' and truth's alike (the site on another grid).
    static func files(grid: PlanePoint = PlanePoint(x: 0, y: 0)) throws -> (folder: URL, receivers: URL, readings: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-locate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let receivers = folder.appendingPathComponent("receivers.csv"), readings = folder.appendingPathComponent("readings.csv")
        let sensors = Straight04.data.sensors.map { "\($0.id),\($0.x + grid.x),\($0.y + grid.y),\($0.z),-60,1.6" }
        try Data((["id,x_m,y_m,z_m,rssi_1m,exponent"] + sensors).joined(separator: "\n").utf8).write(to: receivers)
        let rows = Straight04.rows.map { "\($0.reading.time),\($0.reading.receiver),\(Int($0.reading.rssi)),\($0.truth.x + grid.x),\($0.truth.y + grid.y)" }
        try Data((["time_s,receiver,rssi_dbm,truth_x_m,truth_y_m"] + rows).joined(separator: "\n").utf8).write(to: readings)
        return (folder, receivers, readings)
    }

    @Test func printsOneFixPerSecondNearTheTruth() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.folder) }
        let result = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, files.readings.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first == "time_s,x_m,y_m,radius50_m,radius90_m,receivers")
        let fixes = result.lines.dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        try #require(fixes.count >= 15 && fixes.allSatisfy { $0.count == 6 })
        #expect(fixes.allSatisfy { $0[3] > 0 && $0[4] > $0[3] && $0[5] >= 1 && $0[5] <= 12 })
        // Each fix against the truth at its own time (the rows it was made at).
        let truth = Dictionary(Straight04.rows.map { (String(format: "%.3f", $0.reading.time), $0.truth) }, uniquingKeysWith: { first, _ in first })
        let errors = fixes.compactMap { fix in truth[String(format: "%.3f", fix[0])].map { hypot($0.x - fix[1], $0.y - fix[2]) } }
        try #require(errors.count == fixes.count, "every fix is stamped with a reading's time")
        let median = FixScore(errors: errors).median
        #expect(median < 3, "median error \(median) m")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    /// The same track stamped in milliseconds: still located as given, with a warning saying what looks wrong.
    @Test func warnsWhenTimesLookLikeMilliseconds() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.folder) }
        let lines = try String(contentsOf: files.readings, encoding: .utf8).split(separator: "\n").map { line in
            var fields = line.split(separator: ",").map(String.init)
            if let seconds = Double(fields[0]) { fields[0] = String(Int64((seconds * 1000).rounded())) }
            return fields.joined(separator: ",")
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: files.readings)
        let result = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, files.readings.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Warning: \(files.readings.path): a receiver's readings are a median "), "\(result.stderr)")
        #expect(result.stderr.contains("if time_s is in milliseconds, divide it by 1000"), "\(result.stderr)")
    }

    @Test func refusesAnUnknownReceiverNamingFileAndLine() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.folder) }
        var text = try String(contentsOf: files.readings, encoding: .utf8)
        text += "\n1581249758.0,sensor99,-70,0,0"
        try Data(text.utf8).write(to: files.readings)
        let result = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, files.readings.path])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty, "nothing printed")
        #expect(result.stderr.contains("\(files.readings.path) line \(Straight04.rows.count + 2): receiver `sensor99`"), "\(result.stderr)")
    }

    @Test func skipsAnImpossibleReadingAndLocatesTheRest() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.folder) }
        var lines = try String(contentsOf: files.readings, encoding: .utf8).split(separator: "\n").map(String.init)
        var glitch = lines[10].split(separator: ",").map(String.init)
        glitch[2] = "42"
        lines.insert(glitch.joined(separator: ","), at: 11)
        try Data(lines.joined(separator: "\n").utf8).write(to: files.readings)
        let result = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, files.readings.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Warning: \(files.readings.path) line 12: rssi_dbm 42.0 is not a real signal strength"), "\(result.stderr)")
        #expect(result.lines.count >= 16, "the track is still located")
    }

    /// The same track surveyed on UTM (zone 31's northings run to millions of metres): the same fixes, on that grid,
    /// and the same score against the truth given on it.
    @Test func locatesASiteOnANationalGrid() async throws {
        let utm = PlanePoint(x: 500_000, y: 5_800_000)
        let own = try Self.files(), national = try Self.files(grid: utm)
        defer { for files in [own, national] { try? FileManager.default.removeItem(at: files.folder) } }
        let plain = try await run("bikebeacon", ["locate", "--receivers", own.receivers.path, "--truth", own.readings.path, own.readings.path])
        let result = try await run("bikebeacon", ["locate", "--receivers", national.receivers.path, "--truth", national.readings.path, national.readings.path])
        #expect(result.status == 0, "\(result.stderr)")
        let fixes = { (lines: [String]) in lines.dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } } }
        let expected = fixes(plain.lines), moved = fixes(result.lines)
        try #require(expected.count >= 15 && moved.count == expected.count)
        for (a, b) in zip(expected, moved) {
            // Printed to the centimetre: the same fix, its place on the national grid.
            let offsets = [0, utm.x, utm.y, 0, 0, 0]
            #expect(zip(zip(a, b), offsets).allSatisfy { pair, offset in abs(pair.1 - pair.0 - offset) <= 0.011 }, "\(a) against \(b)")
        }
        let summary = { (text: String, path: String) in text.replacingOccurrences(of: path, with: "READINGS.csv") }
        #expect(summary(result.stderr, national.readings.path) == summary(plain.stderr, own.readings.path), "\(result.stderr)")
    }

    @Test func refusesABadReceiversFile() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.folder) }
        try Data("id,x_m,y_m,z_m\nsensor10,7,seven,1.2\n".utf8).write(to: files.receivers)
        let result = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, files.readings.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(files.receivers.path) line 2: y_m `seven` is not a finite number"), "\(result.stderr)")
        // Each place a grid's, but one 3 000 km from the rest: one is on another grid or in other units.
        try Data("id,x_m,y_m,z_m\nsensor10,500000,5800000,1\nsensor11,500010,8800000,1\n".utf8).write(to: files.receivers)
        try Data("time_s,receiver,rssi_dbm\n1,sensor10,-60\n".utf8).write(to: files.readings)
        let apart = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, files.readings.path])
        #expect(apart.status != 0 && apart.stdout.isEmpty)
        #expect(apart.stderr.contains("\(files.receivers.path): receiver `sensor10` lies more than 1000 km from the middle of the receivers' places"), "\(apart.stderr)")
    }

    /// READINGS.csv as its own truth: the fixes on standard output as without it, and beside them the
    /// score of those very fixes against the truth at their times.
    @Test func scoresItsFixesAgainstTheTruth() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.folder) }
        let plain = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, files.readings.path])
        let result = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, "--truth", files.readings.path, files.readings.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == plain.stdout, "the fixes are the same")
        let truth = Dictionary(Straight04.rows.map { (String(format: "%.3f", $0.reading.time), $0.truth) }, uniquingKeysWith: { first, _ in first })
        let fixes = result.lines.dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        let errors = fixes.compactMap { fix in truth[String(format: "%.3f", fix[0])].map { hypot($0.x - fix[1], $0.y - fix[2]) } }
        try #require(errors.count == fixes.count && errors.count >= 15)
        let inside90 = zip(fixes, errors).filter { $1 <= $0[4] }.count
        // Printed to the centimetre and the percent, from coordinates printed to the centimetre: within that.
        let summary = try #require(result.stderr.split(separator: "\n").first.map(String.init))
        #expect(summary.hasPrefix("Scored \(fixes.count) fixes against \(files.readings.path): median error "), "\(summary)")
        let median = try #require(summary.split(separator: " ").firstIndex(of: "error").flatMap { Double(summary.split(separator: " ")[$0 + 1]) })
        #expect(abs(median - FixScore(errors: errors).median) <= 0.02, "printed \(median), computed \(FixScore(errors: errors).median)")
        let share = Int((Double(inside90) / Double(fixes.count) * 100).rounded())
        #expect(summary.contains("within radius90 at \(share) %"), "\(summary); \(inside90) of \(fixes.count)")
        #expect(summary.contains("radii that hold exactly would give "), "\(summary)")
    }

    /// A truth on another clock scores nothing, and says why; the fixes are still printed.
    @Test func warnsWhenTheTruthIsOnAnotherClock() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.folder) }
        let truth = files.folder.appendingPathComponent("truth.csv")
        try Data("time_s,x_m,y_m\n0,1,1\n100,2,2\n".utf8).write(to: truth)
        let result = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, "--truth", truth.path, files.readings.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count >= 16, "the track is still located")
        #expect(result.stderr.contains("Warning: \(truth.path): no fix falls within its times (0.0 to 100.0 s; the fixes' are 15812"), "\(result.stderr)")
        #expect(result.stderr.contains("are the truth and the readings on the same clock?"), "\(result.stderr)")
    }

    @Test func refusesABadTruthFileBeforeLocating() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(at: files.folder) }
        let truth = files.folder.appendingPathComponent("truth.csv")
        try Data("time_s,x_m,y_m\n0,1,1\n1,2,inf\n".utf8).write(to: truth)
        let result = try await run("bikebeacon", ["locate", "--receivers", files.receivers.path, "--truth", truth.path, files.readings.path])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty, "nothing printed")
        #expect(result.stderr.contains("\(truth.path) line 3: y_m `inf` is not a finite number; nothing was located"), "\(result.stderr)")
    }
}
