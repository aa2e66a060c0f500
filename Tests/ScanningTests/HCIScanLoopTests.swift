import Beacon
import Captures
import Foundation
import HCI
@testable import Scanning
import Synchronization
import Testing

/// The HCI scanner's thread, stream and shutdown, driven by a scripted controller that replays
/// real LE advertising events (no Bluetooth controller exists on the test machines).
struct HCIScanLoopTests {
    /// What the scripted controller was asked to do, in order.
    final class CallLog: Sendable {
        let calls = Mutex<[String]>([])
        func add(_ call: String) { calls.withLock { $0.append(call) } }
        var all: [String] { calls.withLock { $0 } }
    }

    final class ScriptedController: HCIController {
        let log: CallLog
        var events: [[UInt8]]
        let failure: (call: String, error: HCIError)?

        init(log: CallLog, events: [[UInt8]], failure: (String, HCIError)? = nil) {
            self.log = log
            self.events = events
            self.failure = failure
        }

        func record(_ call: String) throws(HCIError) {
            log.add(call)
            if let failure, failure.call == call { throw failure.error }
        }

        func setScanParameters(active: Bool) throws(HCIError) { try record(active ? "parameters active" : "parameters passive") }
        func setScanEnable(_ enable: Bool) throws(HCIError) { try record(enable ? "enable" : "disable") }
        func filterLEMetaEvents() throws(HCIError) { try record("filter") }

        func readPacket(timeoutMilliseconds: Int32, into buffer: inout [UInt8]) throws(HCIError) -> ArraySlice<UInt8>? {
            guard !events.isEmpty else {
                if let failure, failure.call == "read" { throw failure.error }
                usleep(UInt32(timeoutMilliseconds) * 1000)
                return nil
            }
            let event = events.removeFirst()
            buffer.replaceSubrange(0..<event.count, with: event)
            return buffer[0..<event.count]
        }
    }

    /// The LE advertising events of the pcap fixture (2 of them carry iBeacons).
    static let events: [[UInt8]] = {
        guard let bytes = try? fixtureBytes("govee-inout.pcap"), var reader = try? CaptureReader(MemoryBytes(bytes)) else { return [] }
        var events: [[UInt8]] = []
        while let packet = try? reader.next() {
            if packet.h4.starts(with: [0x04, 0x3E]) { events.append(Array(packet.h4)) }
        }
        return events
    }()

    /// The watchdog is out of the way unless a test is about it: a loaded machine can hold the
    /// consumer back for longer than the production 5 s of silence.
    func scanner(_ log: CallLog, events: [[UInt8]] = events, failure: (String, HCIError)? = nil, active: Bool = false,
                 watchdog: Double = 3600) -> HCIScanner {
        HCIScanner(adapter: "hci0", active: active, watchdog: watchdog, logger: .init(label: "test")) { _ in
            ScriptedController(log: log, events: events, failure: failure)
        }
    }

    @Test func reportsFlowAndScanningIsDisabledWhenTheConsumerStops() async throws {
        try #require(Self.events.count > 50)
        let log = CallLog()
        let scanner = scanner(log)
        var ads: [Advertisement] = []
        for try await batch in scanner.advertisementBatches() {
            ads += batch
            if ads.count >= 2 { break }
        }
        #expect(ads.map(\.address?.description) == ["A4:C1:38:05:C7:A1", "C2:35:33:30:25:50"])
        #expect(ads.map(\.rssi) == [-65, -68])
        await scanner.waitUntilStopped()
        #expect(log.all == ["disable", "parameters passive", "filter", "enable", "disable"])
        let counts = await scanner.counts()
        #expect(counts.iBeacons == 2)
        #expect(counts.reports == counts.iBeacons + counts.otherAdvertisements)
    }

    @Test func cancellingTheConsumerStopsAnIdleScan() async throws {
        let log = CallLog()
        let scanner = scanner(log, events: [], active: true)
        let task = Task {
            var count = 0
            for try await batch in scanner.advertisementBatches() { count += batch.count }
            return count
        }
        while !log.all.contains("enable") { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        #expect(try await task.value == 0)
        await scanner.waitUntilStopped()
        #expect(log.all == ["disable", "parameters active", "filter", "enable", "disable"])
    }

    /// Another program on the controller turned our scan off (the field test's `bikebeacon record`
    /// beside the sentinel did): after `watchdog` seconds without a report, scanning is enabled again.
    @Test func aSilentScanIsEnabledAgainByTheWatchdog() async throws {
        let log = CallLog()
        let scanner = scanner(log, events: [], watchdog: 0.3)
        let task = Task { for try await _ in scanner.advertisementBatches() {} }
        for _ in 0..<150 where log.all.filter({ $0 == "enable" }).count < 3 { try await Task.sleep(for: .milliseconds(20)) }
        task.cancel()
        _ = await task.result
        await scanner.waitUntilStopped()
        let restart = ["disable", "parameters passive", "enable"]
        #expect(Array(log.all.prefix(10)) == ["disable", "parameters passive", "filter", "enable"] + restart + restart)
        #expect(log.all.last == "disable")
    }

    @Test func rejectedCommandEndsTheStreamWithTheOperatorMessage() async throws {
        let log = CallLog()
        let rejected = HCIError.controllerRejected(adapter: "hci0", command: "LE Set Scan Parameters", status: 0x0C)
        await #expect(throws: rejected) {
            for try await _ in scanner(log, failure: ("parameters passive", rejected)).advertisementBatches() {}
        }
        #expect(!log.all.contains("enable"))
    }

    @Test func adapterGoneMidScanEndsAfterTheReportsBeforeIt() async throws {
        let log = CallLog()
        var ads = 0
        await #expect(throws: HCIError.adapterGone("hci0")) {
            for try await batch in scanner(log, failure: ("read", .adapterGone("hci0"))).advertisementBatches() { ads += batch.count }
        }
        #expect(ads == 2)
        #expect(log.all.last == "disable")
    }

    /// The LE advertising events of a real capture, and the reports the decoder makes of them.
    static func recorded(_ name: String) throws -> (events: [[UInt8]], reports: [Advertisement]) {
        var reader = try CaptureReader(MemoryBytes(try fixtureBytes(name)))
        var decoder = AdvertisementDecoder()
        var events: [[UInt8]] = []
        var reports: [Advertisement] = []
        while let packet = try reader.next() {
            guard packet.h4.starts(with: [0x04, 0x3E]) else { continue }
            events.append(Array(packet.h4))
            decoder.decode(h4: packet.h4, time: 0) { reports.append($0) }
        }
        return (events, reports)
    }

    @Test(arguments: ["govee-inout.pcap", "govee-h5100.btsnoop", "wimpi5-h5105.pcapng"])
    func batchesCarryEveryReportOfARealCaptureInOrder(_ name: String) async throws {
        let (events, expected) = try Self.recorded(name)
        try #require(!expected.isEmpty)
        let log = CallLog()
        var batches: [[Advertisement]] = []
        for try await batch in scanner(log, events: events).advertisementBatches() {
            batches.append(batch)
            if batches.joined().count >= expected.count { break }
        }
        let reports = Array(batches.joined())
        func identity(_ ad: Advertisement) -> String { "\(ad.beacon) \(ad.rssi) \(ad.measuredPower.map(String.init) ?? "-") \(ad.address?.description ?? "-")" }
        #expect(reports.map(identity) == expected.map(identity))
        #expect(batches.allSatisfy { !$0.isEmpty && $0.count <= ScanBatch.limit })
        // Events the socket already holds are read without waiting and handed over together.
        if name == "govee-h5100.btsnoop" { #expect(batches.count < reports.count) }
    }

    @Test func packetsStreamCarriesEveryEventForRecording() async throws {
        let log = CallLog()
        var packets: [HCIPacket] = []
        for try await packet in scanner(log).packets() {
            packets.append(packet)
            if packets.count == Self.events.count { break }
        }
        #expect(packets.map(\.h4) == Self.events)
        #expect(packets.allSatisfy { $0.time > 1_700_000_000 }, "stamped with the wall clock when read")
    }
}
