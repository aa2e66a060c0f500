import Beacon
import Captures
import Foundation
import Owners
import Scanning
import Testing
import TestSupport

/// `bikes add --nearest`: the tag held next to the computer is the one taken, on real captures
/// (Tests/Fixtures/captures/SOURCE.txt), and close calls are left to the owner.
struct NearestTagTests {
    /// Each beacon's median RSSI in a capture, worked out here without NearestTag.
    static func medians(_ capture: String, within seconds: Double = .infinity) throws -> [(beacon: BeaconID, median: Double)] {
        var reader = try CaptureReader(FileBytes(path: Paths.fixture("captures/" + capture).path))
        var decoder = AdvertisementDecoder()
        var readings: [BeaconID: [Int]] = [:]
        var start: Double?
        while let packet = try reader.next() {
            decoder.decode(h4: packet.h4, time: packet.time) { advertisement in
                start = start ?? advertisement.time
                if advertisement.time - (start ?? 0) <= seconds { readings[advertisement.beacon, default: []].append(advertisement.rssi) }
            }
        }
        return readings.map { beacon, values in
            let sorted = values.sorted()
            let median = sorted.count % 2 == 1 ? Double(sorted[sorted.count / 2]) : Double(sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            return (beacon, median)
        }
        .sorted { $0.median > $1.median }
    }

    func add(_ name: String, _ arguments: [String], file: String, stdin: String? = nil) async throws -> RunResult {
        try await run("bikebeacon", ["bikes", "add", name, "--nearest", "--seconds", "3600", "--file", file] + arguments, stdin: stdin.map { Data($0.utf8) })
    }

    @Test func theLoudestTagOfACaptureIsAdded() async throws {
        let heard = try Self.medians("govee-h5100.btsnoop")
        try #require(heard.count >= 3 && heard[0].median - heard[1].median >= NearestTag.closeWithin, "the capture has one clearly loudest tag")
        let file = try temporaryDirectory() + "/bikes.json"
        let added = try await add("red", ["--replay", Paths.fixture("captures/govee-h5100.btsnoop").path], file: file)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try BikesFile.load(path: file).bikes == [Bike(name: "red", beacon: heard[0].beacon)])
        #expect(added.stderr.contains("nearest tag: \(heard[0].beacon)"))
    }

    @Test func tagsAlreadyOnABikeAreLeftOut() async throws {
        let heard = try Self.medians("govee-h5100.btsnoop")
        let file = try temporaryDirectory() + "/bikes.json"
        try BikesFile.save(BikeBook(bikes: [Bike(name: "old", beacon: heard[0].beacon)]), path: file)
        try #require(heard.count >= 3 && heard[1].median - heard[2].median >= NearestTag.closeWithin, "the next loudest is clearly ahead of the rest")
        let added = try await add("new", ["--replay", Paths.fixture("captures/govee-h5100.btsnoop").path], file: file)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try BikesFile.load(path: file).bikes.last == Bike(name: "new", beacon: heard[1].beacon))
    }

    @Test func closeTagsAreTheOwnersChoice() async throws {
        let capture = Paths.fixture("captures/wimpi5-h5105.pcapng").path
        let heard = try Self.medians("wimpi5-h5105.pcapng")
        try #require(heard.count >= 2 && heard[0].median - heard[1].median < NearestTag.closeWithin, "the capture's two loudest tags are close")
        let file = try temporaryDirectory() + "/bikes.json"

        let unanswered = try await add("red", ["--replay", capture], file: file)
        #expect(unanswered.status != 0)
        #expect(unanswered.stderr.contains("1) \(heard[0].beacon)") && unanswered.stderr.contains("2) \(heard[1].beacon)"))
        #expect(unanswered.stderr.contains("no tag chosen"))
        #expect(try BikesFile.load(path: file).bikes.isEmpty, "nothing is added without an answer")

        let answered = try await add("red", ["--replay", capture], file: file, stdin: "2\n")
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect(try BikesFile.load(path: file).bikes == [Bike(name: "red", beacon: heard[1].beacon)])
    }

    @Test func aReplayIsHeardForItsFirstSeconds() async throws {
        let early = try Self.medians("govee-h5100.btsnoop", within: 5)
        let all = try Self.medians("govee-h5100.btsnoop")
        try #require(early.first?.beacon != all.first?.beacon, "the loudest tag of the capture starts later than its first 5 s")
        let file = try temporaryDirectory() + "/bikes.json"
        let added = try await run("bikebeacon", ["bikes", "add", "red", "--nearest", "--seconds", "5", "--replay", Paths.fixture("captures/govee-h5100.btsnoop").path, "--file", file])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try BikesFile.load(path: file).bikes.map(\.beacon) == [early[0].beacon])
    }

    @Test func eitherBeaconOrNearest() async throws {
        let file = try temporaryDirectory() + "/bikes.json"
        let both = try await run("bikebeacon", ["bikes", "add", "red", "--nearest", "--beacon", "494E5445-4C4C-495F-524F-434B535F4857:1:2", "--file", file])
        #expect(both.status != 0 && both.stderr.contains("pass either --beacon UUID:MAJOR:MINOR or --nearest"))
        let neither = try await run("bikebeacon", ["bikes", "add", "red", "--file", file])
        #expect(neither.status != 0 && neither.stderr.contains("pass either --beacon UUID:MAJOR:MINOR or --nearest"))
    }

    @Test func ranking() {
        let a = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:1:1")!
        let b = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:1:2")!
        var heard = NearestTag()
        #expect(heard.choice() == .nothingHeard)
        for (beacon, rssi) in [(a, -40), (b, -70), (a, -90), (a, -42), (b, -69)] {
            heard.record(Advertisement(beacon: beacon, rssi: rssi, measuredPower: nil, address: nil, time: 0))
        }
        #expect(heard.choice() == .one(.init(beacon: a, medianRSSI: -42, readings: 3)), "one faded packet does not decide")
        #expect(heard.choice(excluding: [a]) == .one(.init(beacon: b, medianRSSI: -69.5, readings: 2)))
        var close = NearestTag()
        for (beacon, rssi) in [(a, -50), (b, -48), (a, -52), (b, -47)] {
            close.record(Advertisement(beacon: beacon, rssi: rssi, measuredPower: nil, address: nil, time: 0))
        }
        guard case .close(let tags) = close.choice() else { Issue.record("two tags 3.5 dB apart are close"); return }
        #expect(tags.map(\.beacon) == [b, a])
    }
}
