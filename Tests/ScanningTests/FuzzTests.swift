import Beacon
import Benchmarks
import Captures
import Scanning
import Testing
import TestSupport

/// Random and mutated real bytes into the HCI parser and each capture reader: no crash, no
/// hang, totals that add up. Seeded, so a failure reproduces.
struct FuzzTests {
    static let captures = ["govee-inout.pcap", "govee-h5100.btsnoop", "wimpi5-h5105.pcapng"]

    /// Real LE advertising report events from all three captures.
    static let realEvents: [[UInt8]] = {
        var events: [[UInt8]] = []
        for name in captures {
            guard let bytes = try? fixtureBytes(name), var reader = try? CaptureReader(MemoryBytes(bytes)) else { continue }
            while let packet = try? reader.next() {
                if packet.h4.count > 4, packet.h4.first == 0x04, packet.h4.dropFirst().first == 0x3E { events.append(Array(packet.h4)) }
            }
        }
        return events
    }()

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        switch rng.next() % 4 {
        case 0: // flip a few bytes
            for _ in 0..<(1 + Int(rng.next() % 4)) where !bytes.isEmpty {
                bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
        case 1: // truncate
            bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count + 1))))
        case 2: // interesting values in a random place
            let interesting: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]
            for _ in 0..<(1 + Int(rng.next() % 3)) where !bytes.isEmpty {
                bytes[Int(rng.next() % UInt64(bytes.count))] = interesting[Int(rng.next() % 6)]
            }
        default: // insert random bytes
            let at = Int(rng.next() % UInt64(bytes.count + 1))
            bytes.insert(contentsOf: (0..<(1 + rng.next() % 8)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: at)
        }
        return bytes
    }

    @Test func hciParserSurvivesRandomAndMutatedEvents() throws {
        try #require(Self.realEvents.count > 1000)
        var rng = SplitMix64(seed: 0xB1CE)
        var decoded = 0
        for round in 0..<100_000 {
            let packet: [UInt8]
            if round % 2 == 0 {
                packet = Self.mutate(Self.realEvents[Int(rng.next() % UInt64(Self.realEvents.count))], &rng)
            } else {
                // Random, but usually shaped like an LE meta event so the fuzzing reaches the reports.
                let length = Int(rng.next() % 80)
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                if length > 3, rng.next() % 4 != 0 {
                    bytes[0] = 0x04; bytes[1] = 0x3E; bytes[2] = UInt8(length - 3)
                    bytes[3] = rng.next() % 2 == 0 ? 0x02 : 0x0D
                }
                packet = bytes
            }
            var decoder = AdvertisementDecoder()
            decoder.decode(h4: packet[...], time: 0) { ad in
                decoded += 1
                #expect((-127...20).contains(ad.rssi))
            }
            let c = decoder.counts
            #expect(c.reports == c.iBeacons + c.otherAdvertisements)
            #expect(c.errors <= 1)
        }
        #expect(decoded > 0, "mutations of real events still decode some iBeacons")
    }

    @Test(.cpuBound, arguments: captures)
    func captureReadersSurviveMutatedRealFiles(_ name: String) throws {
        let bytes = try fixtureBytes(name)
        var reader = try CaptureReader(MemoryBytes(bytes))
        var offsets: [Int] = []
        while let packet = try reader.next() { offsets.append(packet.offset) }
        let header = Array(bytes[..<offsets[0]])
        var rng = SplitMix64(seed: UInt64(name.utf8.count))
        var failures = 0, completed = 0
        for round in 0..<35_000 {
            // The header plus a window of real records starting at a random record.
            let start = offsets[Int(rng.next() % UInt64(offsets.count))]
            let window = header + bytes[start..<min(bytes.count, start + 256)]
            let input = round % 10 == 0
                ? Array(header.prefix(8)) + (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                : Self.mutate(window, &rng)
            let r = replay(input)
            // Every record consumes at least 12 bytes, so the reader cannot loop forever.
            #expect(r.packets <= input.count / 12 + 1)
            #expect(r.counts.reports == r.counts.iBeacons + r.counts.otherAdvertisements)
            if let error = r.error {
                failures += 1
                if let offset = error.offset { #expect(offset <= input.count) }
            } else {
                completed += 1
            }
        }
        #expect(failures > 0 && completed > 0, "the mutations reach both damaged and intact inputs")
    }
}
