#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Beacon

/// A BeaconID packed into three words for hashing and comparison without allocation.
struct BeaconKey: Hashable, Sendable {
    var high: UInt64
    var low: UInt64
    var majorMinor: UInt32

    init(_ beacon: BeaconID) {
        let u = beacon.uuid.uuid
        high = UInt64(u.0) << 56 | UInt64(u.1) << 48 | UInt64(u.2) << 40 | UInt64(u.3) << 32
            | UInt64(u.4) << 24 | UInt64(u.5) << 16 | UInt64(u.6) << 8 | UInt64(u.7)
        low = UInt64(u.8) << 56 | UInt64(u.9) << 48 | UInt64(u.10) << 40 | UInt64(u.11) << 32
            | UInt64(u.12) << 24 | UInt64(u.13) << 16 | UInt64(u.14) << 8 | UInt64(u.15)
        majorMinor = UInt32(beacon.major) << 16 | UInt32(beacon.minor)
    }

    var beaconID: BeaconID {
        let h = high, l = low
        let uuid = UUID(uuid: (
            UInt8(truncatingIfNeeded: h >> 56), UInt8(truncatingIfNeeded: h >> 48), UInt8(truncatingIfNeeded: h >> 40), UInt8(truncatingIfNeeded: h >> 32),
            UInt8(truncatingIfNeeded: h >> 24), UInt8(truncatingIfNeeded: h >> 16), UInt8(truncatingIfNeeded: h >> 8), UInt8(truncatingIfNeeded: h),
            UInt8(truncatingIfNeeded: l >> 56), UInt8(truncatingIfNeeded: l >> 48), UInt8(truncatingIfNeeded: l >> 40), UInt8(truncatingIfNeeded: l >> 32),
            UInt8(truncatingIfNeeded: l >> 24), UInt8(truncatingIfNeeded: l >> 16), UInt8(truncatingIfNeeded: l >> 8), UInt8(truncatingIfNeeded: l)))
        return BeaconID(uuid: uuid, major: UInt16(majorMinor >> 16), minor: UInt16(majorMinor & 0xFFFF))
    }
}

/// Open addressing with linear probing and backward-shift deletion, keyed by BeaconKey.
/// The hash is seeded per table so crafted beacons on the air cannot aim at one probe chain.
struct BeaconTable: Sendable {
    struct Slot: Sendable {
        var key: BeaconKey
        /// `Slot.empty` marks a free slot.
        var value: UInt32
        static let empty = UInt32.max
    }

    var slots: [Slot]
    var seed: UInt64
    private(set) var count = 0

    /// At most this share of slots is used. Most lookups on a sentinel are misses (strangers'
    /// beacons), and a linear-probing miss costs ½(1 + 1/(1−load)²) probes: 2.5 at 0.5, 8.5 at 0.75.
    static let maxLoad = 0.5

    init(minimumCapacity: Int, seed: UInt64 = UInt64.random(in: .min ... .max)) {
        self.seed = seed
        let capacity = max(16, Int((Double(max(minimumCapacity, 1)) / Self.maxLoad).rounded(.up)) + 1)
        slots = Array(unsafeUninitializedCapacity: capacity) { buffer, initialized in
            HugePages.advise(UnsafeMutableRawBufferPointer(buffer))
            buffer.initialize(repeating: Slot(key: BeaconKey.zero, value: Slot.empty))
            initialized = capacity
        }
    }

    func home(_ key: BeaconKey) -> Int {
        // Multiply-xorshift mix, then Lemire's range reduction (no power-of-two capacity needed).
        var h = (key.high ^ seed) &* 0x9E37_79B9_7F4A_7C15
        h ^= (key.low &+ UInt64(key.majorMinor)) &* 0xC2B2_AE3D_27D4_EB4F
        h ^= h >> 29
        h &*= 0x1656_67B1_9E37_79F9
        h ^= h >> 32
        return Int(h.multipliedFullWidth(by: UInt64(slots.count)).high)
    }

    func value(for key: BeaconKey) -> UInt32? {
        slots.withUnsafeBufferPointer { buffer in
            var index = home(key)
            while true {
                let slot = buffer[index]
                if slot.value == Slot.empty { return nil }
                if slot.key == key { return slot.value }
                index += 1
                if index == buffer.count { index = 0 }
            }
        }
    }

    var entries: [(key: BeaconKey, value: UInt32)] {
        slots.lazy.filter { $0.value != Slot.empty }.map { ($0.key, $0.value) }
    }

    mutating func insert(_ key: BeaconKey, value: UInt32) {
        if Double(count + 1) > Double(slots.count) * Self.maxLoad { grow() }
        var index = home(key)
        while slots[index].value != Slot.empty {
            if slots[index].key == key {
                slots[index].value = value
                return
            }
            index = (index + 1) % slots.count
        }
        slots[index] = Slot(key: key, value: value)
        count += 1
    }

    mutating func remove(_ key: BeaconKey) {
        var index = home(key)
        while slots[index].value != Slot.empty {
            if slots[index].key == key {
                shiftBack(from: index)
                count -= 1
                return
            }
            index = (index + 1) % slots.count
        }
    }

    /// Backward-shift deletion: pull later members of the probe run into the hole, so no tombstones accumulate.
    private mutating func shiftBack(from start: Int) {
        var hole = start
        var index = (start + 1) % slots.count
        while slots[index].value != Slot.empty {
            let home = home(slots[index].key)
            let distanceFromHome = (index - home + slots.count) % slots.count
            let distanceToHole = (index - hole + slots.count) % slots.count
            if distanceFromHome >= distanceToHole {
                slots[hole] = slots[index]
                hole = index
            }
            index = (index + 1) % slots.count
        }
        slots[hole].value = Slot.empty
    }

    private mutating func grow() {
        var bigger = BeaconTable(minimumCapacity: max(count * 2, 16), seed: seed)
        for slot in slots where slot.value != Slot.empty { bigger.insert(slot.key, value: slot.value) }
        self = bigger
    }
}

extension BeaconKey {
    static let zero = BeaconKey(high: 0, low: 0, majorMinor: 0)

    init(high: UInt64, low: UInt64, majorMinor: UInt32) {
        self.high = high
        self.low = low
        self.majorMinor = majorMinor
    }
}

/// A random probe into a table of tens of megabytes misses the TLB as well as the cache; with
/// 2 MiB pages the page walk mostly disappears. Must run before the memory is first touched.
enum HugePages {
    static let size = 2 << 20

    static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
        guard let base = buffer.baseAddress, buffer.count >= 2 * size else { return }
        let start = (Int(bitPattern: base) + size - 1) & ~(size - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(size - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, end - start, MADV_HUGEPAGE)
        #endif
    }
}
