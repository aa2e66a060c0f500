import Beacon
import Captures
import Foundation
import Scanning
import Testing
import TestSupport

/// A damaged capture gives everything valid before the damage, then an error naming its offset.
struct CaptureDamageTests {
    /// Record offsets of a capture, in order.
    func recordOffsets(_ bytes: [UInt8]) throws -> [Int] {
        var reader = try CaptureReader(MemoryBytes(bytes))
        var offsets: [Int] = []
        while let packet = try reader.next() { offsets.append(packet.offset) }
        return offsets
    }

    /// Index of the record holding the second iBeacon report, so a cut there leaves one before it.
    func secondIBeaconRecord(_ bytes: [UInt8]) throws -> Int {
        var reader = try CaptureReader(MemoryBytes(bytes))
        var decoder = AdvertisementDecoder()
        var index = 0
        while let packet = try reader.next() {
            decoder.decode(h4: packet.h4, time: packet.time) { _ in }
            if decoder.counts.iBeacons >= 2 { return index }
            index += 1
        }
        throw CaptureError.corrupt(offset: 0, reason: "fixture has fewer than two iBeacons")
    }

    @Test(arguments: ["govee-inout.pcap", "govee-h5100.btsnoop", "wimpi5-h5105.pcapng"])
    func truncatedFileKeepsThePrefixAndNamesTheOffset(_ name: String) throws {
        let bytes = try fixtureBytes(name)
        let whole = replay(bytes)
        let offsets = try recordOffsets(bytes)
        let cutIndex = try secondIBeaconRecord(bytes)
        let cutRecord = offsets[cutIndex]
        // Cut inside that record: its header survives, its body does not.
        let damaged = replay(Array(bytes[..<(cutRecord + 20)]))
        let error = try #require(damaged.error)
        #expect(error.offset == cutRecord)
        #expect(error.description.contains("byte offset \(cutRecord)"))
        #expect(damaged.packets == cutIndex, "every record before the cut is read")
        #expect(damaged.advertisements.count == 1)
        #expect(damaged.advertisements == Array(whole.advertisements.prefix(1)))
    }

    @Test func corruptLengthFieldIsReportedNotAllocated() throws {
        var bytes = try fixtureBytes("govee-h5100.btsnoop")
        let offsets = try recordOffsets(bytes)
        let victim = offsets[500]
        // Included length 0x7FFFFFFF: corrupt, not a reason to read 2 GB.
        bytes.replaceSubrange((victim + 4)..<(victim + 8), with: [0x7F, 0xFF, 0xFF, 0xFF])
        let r = replay(bytes)
        #expect(r.packets == 500)
        #expect(r.error?.offset == victim)
        guard case .corrupt = r.error else { Issue.record("expected a corrupt-record error, got \(String(describing: r.error))"); return }
    }

    @Test func pcapngTrailerMismatchIsCorruption() throws {
        var bytes = try fixtureBytes("wimpi5-h5105.pcapng")
        let offsets = try recordOffsets(bytes)
        let block = offsets[100]
        let length = Int(bytes[block + 4]) | Int(bytes[block + 5]) << 8
        bytes[block + length - 4] ^= 0x04
        let r = replay(bytes)
        #expect(r.packets == 100)
        #expect(r.error?.offset == block)
    }

    @Test func notACaptureIsAClearError() throws {
        let r = replay(Array("timestamp,rssi\n1,2\n".utf8))
        guard case .unknownFormat = r.error else { Issue.record("expected unknownFormat, got \(String(describing: r.error))"); return }
        #expect(r.error?.description.contains("not a btsnoop, pcap or pcapng capture") == true)
        #expect(replay([]).error != nil)
    }

    @Test func nonBluetoothLinkTypeIsNamed() throws {
        var bytes = try fixtureBytes("govee-inout.pcap")
        bytes[20] = 1 // LINKTYPE_ETHERNET
        #expect(replay(bytes).error == .unsupportedLinkType(1, offset: 20))
    }

    @Test func missingFileIsUnreadable() {
        #expect(throws: CaptureError.unreadable(path: "/nonexistent/x.pcap", reason: "No such file or directory")) {
            try FileBytes(path: "/nonexistent/x.pcap")
        }
    }
}
