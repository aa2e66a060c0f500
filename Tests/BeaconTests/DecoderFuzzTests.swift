import Beacon
import Testing
import TestSupport

/// Any byte sequence gives a frame or a typed error, never a trap; and whatever decodes is a
/// real iBeacon: re-encoding it gives back the bytes it came from.
struct DecoderFuzzTests {
    static let seeds: [[UInt8]] = [
        "4c000215494e54454c4c495f524f434b535f48575075f2ffc2",
        "4c000215426c7565436861726d426561636f6e730efe1355c5",
        "4c000215b5b182c7eab14988aa99b5c1517008d90001641ac5",
    ].compactMap { Hex.bytes($0) }

    @Test(.cpuBound) func millionRandomAndMutatedInputs() throws {
        var rng = Xoshiro(seed: 0x5EED)
        var decoded = 0, rejected = 0
        for round in 0..<1_000_000 {
            let input = round % 2 == 0 ? Self.random(&rng) : Self.mutated(&rng)
            let form = round % 3
            do {
                let frame: IBeaconFrame
                switch form {
                case 0: frame = try IBeacon.decode(manufacturerData: input)
                case 1: frame = try IBeacon.decode(advertisingData: input)
                default: frame = try IBeacon.decode(anyForm: input)
                }
                decoded += 1
                if form == 0 {
                    let power = frame.measuredPower.map { Int8($0) } ?? Int8(bitPattern: input[24])
                    try #require(IBeacon.manufacturerData(for: frame.beacon, measuredPower: power) == input)
                }
            } catch {
                rejected += 1
            }
        }
        // The mutator keeps many inputs valid, so both outcomes must really occur.
        #expect(decoded > 50_000)
        #expect(rejected > 500_000)
    }

    static func random(_ rng: inout Xoshiro) -> [UInt8] {
        let count = Int(rng.next() % 64)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// Real frames, as manufacturer data or wrapped in AD structures, with the damage radios and attackers do.
    static func mutated(_ rng: inout Xoshiro) -> [UInt8] {
        var bytes = seeds[Int(rng.next() % UInt64(seeds.count))]
        if rng.next() % 2 == 0 {
            bytes = [0x02, 0x01, 0x06, UInt8(bytes.count + 1), 0xFF] + bytes
        }
        switch rng.next() % 6 {
        case 0: bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 << (rng.next() % 8))
        case 1: bytes.removeLast(Int(rng.next() % UInt64(bytes.count)))
        case 2: bytes += (0..<Int(rng.next() % 8)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        case 3: bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
        case 4: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: Int(rng.next() % UInt64(bytes.count)))
        default: break
        }
        return bytes
    }
}

/// xoshiro256** — small, fast and seeded, so a failure reproduces.
struct Xoshiro {
    var s: (UInt64, UInt64, UInt64, UInt64)
    init(seed: UInt64) {
        var x = seed
        func splitmix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s = (splitmix(), splitmix(), splitmix(), splitmix())
    }
    mutating func next() -> UInt64 {
        let result = ((s.1 &* 5) << 7 | (s.1 &* 5) >> 57) &* 9
        let t = s.1 << 17
        s.2 ^= s.0; s.3 ^= s.1; s.1 ^= s.2; s.0 ^= s.3; s.2 ^= t
        s.3 = s.3 << 45 | s.3 >> 19
        return result
    }
}
