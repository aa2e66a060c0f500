import Beacon
import BikebeaconAPI
import Foundation
import Registry

/// libFuzzer entry: any bytes as the bodies of `GET /v1/missing` answers (full lists and deltas,
/// separated by a 0x1E byte), decoded and applied to the registry in turn as the sentinel's list sync
/// does. A body is taken or refused with an error; what is taken must leave the registry holding
/// exactly what it said, and a list read entry by entry must be what the whole document's decoder reads.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzMissingList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var registry = MissingRegistry()
    for body in bytes.split(separator: 0x1E, omittingEmptySubsequences: false) {
        expectSplitReadsAsWhole(Data(body))
        guard let answer = try? MissingListWire.decode(Data(body), etag: nil) else { continue }
        switch answer {
        case .notModified:
            break
        case let .full(version, bikes, _):
            registry.replace(version: version, bikes: bikes)
            precondition(registry.version == version, "a full list of version \(version) left the registry at \(registry.version)")
            precondition(registry.count == Set(bikes.map(\.beacon)).count, "a full list of \(bikes.count) entries left \(registry.count)")
            expectHolds(registry, bikes.reversed().uniqued(), "full list")
        case let .delta(delta, _):
            let held = registry.version
            do {
                try registry.apply(delta)
            } catch {
                precondition(delta.since != held, "a delta from the version held (\(held)) was refused: \(error)")
                continue
            }
            precondition(registry.version == delta.version, "a delta to version \(delta.version) left the registry at \(registry.version)")
            let added = Set(delta.added.map(\.beacon))
            for beacon in delta.removed where !added.contains(beacon) {
                precondition(!registry.contains(beacon), "\(beacon) was removed by the delta but is still held")
            }
            expectHolds(registry, delta.added.reversed().uniqued(), "delta")
        }
    }
    return 0
}

/// A list read an entry at a time (`JSONMemberArray`) is what the whole document's decoder reads from the same bytes.
private func expectSplitReadsAsWhole(_ data: Data) {
    guard let split = data.withUnsafeBytes({ MissingListWire.decodeEntryByEntry($0, decoder: JSONDecoder()) }) else { return }
    guard let whole = try? JSONDecoder().decode(MissingList.self, from: data) else {
        preconditionFailure("read entry by entry, refused as a whole: \(split.bikes.count) bikes")
    }
    precondition(whole.version == split.version && whole.beacons.map(\.bike) == split.bikes, "read differently entry by entry")
}

/// Every bike (the last entry for a beacon wins) matches with its description.
private func expectHolds(_ registry: MissingRegistry, _ bikes: [MissingBike], _ what: String) {
    for bike in bikes {
        precondition(registry.match(bike.beacon) == bike.description, "\(what): \(bike.beacon) does not match what was sent")
    }
}

extension Sequence where Element == MissingBike {
    /// The first entry per beacon.
    fileprivate func uniqued() -> [MissingBike] {
        var seen = Set<BeaconID>()
        return filter { seen.insert($0.beacon).inserted }
    }
}
