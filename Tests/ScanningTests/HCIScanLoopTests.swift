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

    func scanner(_ log: CallLog, events: [[UInt8]] = events, failure: (String, HCIError)? = nil, active: Bool = false) -> HCIScanner {
        HCIScanner(adapter: "hci0", active: active, logger: .init(label: "test")) { _ in
            ScriptedController(log: log, events: events, failure: failure)
        }
    }

    @Test func reportsFlowAndScanningIsDisabledWhenTheConsumerStops() async throws {
        try #require(Self.events.count > 50)
        let log = CallLog()
        let scanner = scanner(log)
        var ads: [Advertisement] = []
        for try await ad in scanner.advertisements() {
            ads.append(ad)
            if ads.count == 2 { break }
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
            for try await _ in scanner.advertisements() { count += 1 }
            return count
        }
        while !log.all.contains("enable") { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        #expect(try await task.value == 0)
        await scanner.waitUntilStopped()
        #expect(log.all == ["disable", "parameters active", "filter", "enable", "disable"])
    }

    @Test func rejectedCommandEndsTheStreamWithTheOperatorMessage() async throws {
        let log = CallLog()
        let rejected = HCIError.controllerRejected(adapter: "hci0", command: "LE Set Scan Parameters", status: 0x0C)
        await #expect(throws: rejected) {
            for try await _ in scanner(log, failure: ("parameters passive", rejected)).advertisements() {}
        }
        #expect(!log.all.contains("enable"))
    }

    @Test func adapterGoneMidScanEndsAfterTheReportsBeforeIt() async throws {
        let log = CallLog()
        var ads = 0
        await #expect(throws: HCIError.adapterGone("hci0")) {
            for try await _ in scanner(log, failure: ("read", .adapterGone("hci0"))).advertisements() { ads += 1 }
        }
        #expect(ads == 2)
        #expect(log.all.last == "disable")
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
