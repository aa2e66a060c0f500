@testable import Benchmarks
import Foundation
import Proximity
import Testing
import TestSupport

/// The proximity bench on the small real excerpts in Tests/Fixtures/rssi (see their SOURCE.txt),
/// and the loader's handling of bad input.
struct ProximityBenchTests {
    static let fixtures = Paths.fixture("rssi").path

    /// On the one-file excerpts ours flaps several times less than the unfiltered log-distance
    /// method. Its balanced accuracy is not asserted here: these two files are ones where n = 2
    /// fits the phones better than ours (per-file table of `bench proximity`); the claim is made
    /// on the whole datasets below.
    @Test(arguments: ["herald", "pcng"])
    func oursFlapsFarLessThanRawLogDistanceOnRealData(name: String) throws {
        let dataset = name == "herald" ? try RSSIDatasets.herald(directory: Self.fixtures) : try RSSIDatasets.pcng(directory: Self.fixtures)
        let results = ProximityBench.run(dataset, methods: [.ours, .rawLogDistance])
        let ours = results[0].total, raw = results[1].total
        #expect(ours.flapsPerHour * 5 < raw.flapsPerHour, "ours \(ours.flapsPerHour)/h, raw \(raw.flapsPerHour)/h")
    }

    /// On the whole herald and pcng sets (../shared/data/rssi) ours is as accurate as the
    /// unfiltered log-distance method, the best anchor on both (`bench proximity`: 0.5 points
    /// behind on herald, 4.4 ahead on pcng), while flapping less than room-assistant's Kalman
    /// filter. Its constants were chosen on five sets, these two among them: v2's lead of 3 and 7
    /// points here came from constants fitted to these two alone, and did not hold elsewhere.
    @Test(.cpuBound, arguments: ["herald", "pcng"])
    func oursMatchesTheBestAnchorAndFlapsLessOnTheWholeDataset(name: String) throws {
        guard let dataset = try rssiDataset(name, whole: true) else { return }
        let results = ProximityBench.run(dataset, methods: [.ours, .rawLogDistance, .roomAssistant])
        let ours = results[0].total, raw = results[1].total, kalman = results[2].total
        #expect(ours.balancedAccuracy >= raw.balancedAccuracy - 0.01, "ours \(ours.balancedAccuracy), raw \(raw.balancedAccuracy)")
        #expect(ours.flapsPerHour < kalman.flapsPerHour, "ours \(ours.flapsPerHour)/h, room-assistant \(kalman.flapsPerHour)/h")
    }

    /// Flapping on real streams: herald's rig holds each phone still for minutes, and there ours
    /// changes zone at most once an hour; pcng's phones are carried by people standing apart, and
    /// there ours flaps no more than AltBeacon's 20 s average, the least-flapping anchor
    /// (`bench proximity`).
    @Test(.cpuBound, arguments: ["herald", "pcng"])
    func oursBarelyFlapsOnTheWholeDataset(name: String) throws {
        guard let dataset = try rssiDataset(name, whole: true) else { return }
        let results = ProximityBench.run(dataset, methods: [.ours, .altBeacon])
        let ours = results[0].total, altBeacon = results[1].total
        if name == "herald" {
            #expect(ours.flapsPerHour <= 1, "ours \(ours.flapsPerHour)/h on a static rig")
        }
        #expect(ours.flapsPerHour <= altBeacon.flapsPerHour, "ours \(ours.flapsPerHour)/h, AltBeacon \(altBeacon.flapsPerHour)/h")
    }

    /// Two-point calibration fits each receiver's exponent to its streams nearest 1 m and 3 m:
    /// on the herald excerpt, the 1 m and 3.1 m medians.
    @Test func twoPointCalibrationFitsTheExponentToTheStreamsNearestOneAndThreeMetres() throws {
        let dataset = try RSSIDatasets.herald(directory: Self.fixtures)
        let receiver = try #require(dataset.receivers.first)
        let three = try #require(receiver.streams.first { $0.distance == 3.1 })
        let expected = (receiver.measuredPower - RSSIDatasets.median(three.rssi)) / (10 * log10(3.1))
        let model = BenchCalibration.twoPoint.model(receiver)
        #expect(model.measuredPower == receiver.measuredPower)
        #expect(abs((model.exponent ?? .nan) - expected) < 1e-9, "fitted \(String(describing: model.exponent)), expected \(expected)")
        #expect(BenchCalibration.onePoint.model(receiver).exponent == nil)
        // A receiver heard at one distance only has no second point: it is scored one-point.
        var single = receiver
        single.streams = receiver.streams.filter { $0.distance == 1 }
        #expect(BenchCalibration.twoPoint.model(single).exponent == nil)
    }

    /// Streams are maximal constant-distance runs; measured power is the median RSSI at 1 m.
    @Test func heraldExcerptLoadsAsStreamsWithCalibration() throws {
        let dataset = try RSSIDatasets.herald(directory: Self.fixtures)
        let receiver = try #require(dataset.receivers.first)
        #expect(dataset.receivers.count == 1)
        #expect(receiver.streams.map(\.distance) == stride(from: 10, through: 340, by: 30).map { Double($0) / 100 })
        let oneMetre = try #require(receiver.streams.first { $0.distance == 1 })
        #expect(receiver.measuredPower == RSSIDatasets.median(oneMetre.rssi))
        #expect(dataset.skippedRows == 0)
        #expect(dataset.retimedStreams == 0)
    }

    @Test func missingFolderIsATypedError() {
        #expect(throws: RSSIDatasetError.self) { try RSSIDatasets.herald(directory: "/nonexistent/rssi") }
    }

    @Test func wrongHeaderIsATypedError() throws {
        let folder = try Self.temporaryFolder(file: "herald/20990101-0000-A.csv", "a,b,c\n1,2,3\n")
        #expect(throws: RSSIDatasetError.self) { try RSSIDatasets.herald(directory: folder) }
    }

    /// Garbage rows are skipped and counted; the good rows still load.
    @Test func malformedRowsAreSkippedAndCounted() throws {
        let csv = "time,rssi,distance\n2021-03-12 10:49:00,-60,100\nnot a row\n2021-13-12 10:49:01,-60,100\n2021-03-12 10:49:02,x,100\n2021-03-12 10:49:03,-61,100\n"
        let folder = try Self.temporaryFolder(file: "herald/20990101-0000-A.csv", csv)
        let dataset = try RSSIDatasets.herald(directory: folder)
        #expect(dataset.skippedRows == 3)
        #expect(dataset.receivers.first?.streams.first?.rssi == [-60, -61])
        #expect(dataset.receivers.first?.streams.first?.times == [1_615_546_140, 1_615_546_143])
    }

    /// A clock quantised to 100 s (pcng's HTC One M9 in BB and PP) is replaced by the typical
    /// interval of the streams with a usable clock.
    @Test func coarseClockIsRetimedAtTheTypicalInterval() throws {
        var csv = "device,elapsed,rss,mRSS10,mRSS100,dist,label\n"
        for i in 0..<50 { csv += "good,\(Double(i) * 0.1),-60,0,0,100,1\n" }
        for _ in 0..<50 { csv += "coarse,16300,-60,0,0,100,1\n" }
        let folder = try Self.temporaryFolder(file: "pcng/RSS_humanXX.csv", csv)
        let dataset = try RSSIDatasets.pcng(directory: folder)
        #expect(dataset.retimedStreams == 1)
        let coarse = try #require(dataset.receivers.first { $0.name.hasSuffix(":coarse") }?.streams.first)
        #expect(abs(coarse.times[49] - (16300 + 49 * 0.1)) < 1e-6)
    }

    /// The bench command runs on a data folder and fails with a clear message without one.
    @Test func benchCommandReportsAllMethodsOrAClearError() async throws {
        let good = try await run("bikebeacon-bench", ["proximity", "--data", Self.fixtures])
        #expect(good.status == 0, "\(good.stderr)")
        for method in ProximityMethod.allCases { #expect(good.stdout.contains(method.rawValue)) }
        #expect(good.stdout.contains("leave one dataset out"))
        let missing = try await run("bikebeacon-bench", ["proximity", "--data", "/nonexistent/rssi"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no RSSI data at /nonexistent/rssi/herald"))
    }

    static func temporaryFolder(file: String, _ contents: String) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-\(UUID().uuidString)")
        let url = root.appendingPathComponent(file)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return root.path
    }
}
