import Beacon
import Captures
import Scanning

/// Capture replay throughput: a large btsnoop built from a real capture's iBeacon events,
/// read back through the same reader, parser and decoder as `bikebeacon replay`.
public enum DecodeBench {
    public struct Built: Sendable {
        public var packets: Int
        public var iBeacons: Int
        public var bytes: Int
    }

    public struct Replayed: Sendable {
        public var counts: ScanCounts
        public var seconds: Double
    }

    /// Writes `path` with the source capture's iBeacon-carrying advertising events repeated until
    /// at least `reports` iBeacon reports; each pass is shifted in time so timestamps keep rising.
    public static func buildCapture(from source: String, reports: Int, to path: String) throws -> Built {
        var events: [(time: Double, h4: [UInt8])] = []
        var reader = try CaptureReader(FileBytes(path: source))
        while let packet = try reader.next() {
            var decoder = AdvertisementDecoder()
            decoder.decode(h4: packet.h4, time: packet.time) { _ in }
            if decoder.counts.iBeacons > 0 { events.append((packet.time, Array(packet.h4))) }
        }
        guard let first = events.first, let last = events.last else {
            throw BenchError.noIBeacons(source)
        }
        let perPass = events.reduce(0) { total, event in
            var decoder = AdvertisementDecoder()
            decoder.decode(h4: event.h4[...], time: event.time) { _ in }
            return total + decoder.counts.iBeacons
        }
        let span = last.time - first.time + 1
        let writer = try BtsnoopFileWriter(path: path)
        var built = Built(packets: 0, iBeacons: 0, bytes: 16)
        var pass = 0
        while built.iBeacons < reports {
            for event in events {
                try writer.append(h4: event.h4, time: event.time + Double(pass) * span)
                built.packets += 1
                built.bytes += 24 + event.h4.count
            }
            built.iBeacons += perPass
            pass += 1
        }
        return built
    }

    /// Reads the whole capture synchronously, counting what the decoder makes of it.
    public static func replay(path: String) throws -> Replayed {
        let clock = Stopwatch()
        var reader = try CaptureReader(FileBytes(path: path))
        var decoder = AdvertisementDecoder()
        while let packet = try reader.next() {
            decoder.decode(h4: packet.h4, time: packet.time) { _ in }
        }
        return Replayed(counts: decoder.counts, seconds: clock.seconds)
    }

    /// The same pass through `CaptureScanner`'s stream of batches, as replay and the sentinel consume it.
    public static func replayStream(path: String) async throws -> Replayed {
        let clock = Stopwatch()
        let scanner = CaptureScanner(path: path)
        for try await batch in scanner.advertisementBatches() { blackHole(batch.count) }
        return Replayed(counts: await scanner.counts(), seconds: clock.seconds)
    }

    /// The stream as it was before batching, as a baseline: one async hop per report through an
    /// unfolding stream over the same reader and decoder.
    public static func replayPerReport(path: String) async throws -> Replayed {
        final class Source: @unchecked Sendable {
            // Only the stream's unfolding closure touches these, one call at a time.
            var reader: CaptureReader<FileBytes>
            var decoder = AdvertisementDecoder()
            var pending: [Advertisement] = []
            init(path: String) throws { reader = try CaptureReader(FileBytes(path: path)) }
            func next() throws -> Advertisement? {
                while pending.isEmpty {
                    guard let packet = try reader.next() else { return nil }
                    decoder.decode(h4: packet.h4, time: packet.time) { pending.append($0) }
                }
                return pending.removeFirst()
            }
        }
        let clock = Stopwatch()
        let source = try Source(path: path)
        let stream = AsyncThrowingStream(unfolding: { () async throws -> Advertisement? in try source.next() })
        for try await advertisement in stream { blackHole(Int(advertisement.rssi)) }
        return Replayed(counts: source.decoder.counts, seconds: clock.seconds)
    }

    public enum BenchError: Error, CustomStringConvertible {
        case noIBeacons(String)
        public var description: String {
            switch self {
            case let .noIBeacons(path): "\(path) holds no iBeacon advertising reports to repeat"
            }
        }
    }
}
