import Beacon

public enum RegistryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The delta was computed from another version than the one held; fetch the full list instead.
    case versionMismatch(held: Int64, deltaSince: Int64)
    /// More entries than the compact table can index.
    case tooManyEntries(Int)

    public var description: String {
        switch self {
        case let .versionMismatch(held, since):
            "delta starts at version \(since) but the registry holds version \(held); fetch the full list"
        case let .tooManyEntries(count):
            "\(count) entries exceed the registry's limit of \(UInt32.max - 1)"
        }
    }
}

/// The versioned missing list, matched on every advertisement. A value type.
///
/// Built for a Pi with a large community list: an open-addressing table of 24-byte slots
/// (no per-entry allocation, one cache line per probe) and interned descriptions, since many
/// bikes share make, model and colour.
public struct MissingRegistry: Sendable {
    public private(set) var version: Int64
    private var table: BeaconTable
    private var descriptions: [BikeDescription]
    private var descriptionIndex: [BikeDescription: UInt32]

    public init(version: Int64 = 0, bikes: some Sequence<MissingBike> = [MissingBike]()) {
        self.version = version
        table = BeaconTable(minimumCapacity: bikes.underestimatedCount)
        descriptions = []
        descriptionIndex = [:]
        for bike in bikes { insert(bike) }
    }

    public var count: Int { table.count }
    public var isEmpty: Bool { table.count == 0 }

    /// The description of a missing bike with this beacon, or nil.

    public func match(_ beacon: BeaconID) -> BikeDescription? {
        table.value(for: BeaconKey(beacon)).map { descriptions[Int($0)] }
    }

    public func contains(_ beacon: BeaconID) -> Bool {
        table.value(for: BeaconKey(beacon)) != nil
    }

    /// Every entry, in no particular order.
    public var bikes: [MissingBike] {
        table.entries.map { MissingBike(beacon: $0.key.beaconID, description: descriptions[Int($0.value)]) }
    }

    /// Replaces the whole list, as after a full fetch.
    public mutating func replace(version: Int64, bikes: some Sequence<MissingBike>) {
        self = MissingRegistry(version: version, bikes: bikes)
    }

    /// Applies a delta; removals first, so a bike removed and re-added in one delta stays.
    public mutating func apply(_ delta: MissingListDelta) throws(RegistryError) {
        guard delta.since == version else { throw .versionMismatch(held: version, deltaSince: delta.since) }
        for beacon in delta.removed { table.remove(BeaconKey(beacon)) }
        for bike in delta.added { insert(bike) }
        version = delta.version
    }

    private mutating func insert(_ bike: MissingBike) {
        let index: UInt32
        if let existing = descriptionIndex[bike.description] {
            index = existing
        } else {
            index = UInt32(descriptions.count)
            descriptions.append(bike.description)
            descriptionIndex[bike.description] = index
        }
        table.insert(BeaconKey(bike.beacon), value: index)
    }
}
