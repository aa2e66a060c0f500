import Beacon
import Captures
import Foundation
import Scanning
import TestSupport

/// Reads a whole capture through the same reader and decoder the replay command uses.
struct Replayed {
    var advertisements: [Advertisement] = []
    var counts = ScanCounts()
    var packets = 0
    var error: CaptureError?
    var format: CaptureFormat?
}

func replay(_ bytes: [UInt8]) -> Replayed {
    var result = Replayed()
    var decoder = AdvertisementDecoder()
    do {
        var reader = try CaptureReader(MemoryBytes(bytes))
        result.format = reader.format
        while let packet = try reader.next() {
            result.packets += 1
            decoder.decode(h4: packet.h4, time: packet.time) { result.advertisements.append($0) }
        }
    } catch {
        result.error = error
    }
    result.counts = decoder.counts
    return result
}

func fixtureBytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: Paths.fixture("captures/\(name)")))
}
