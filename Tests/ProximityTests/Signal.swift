import Benchmarks
import Foundation
import Proximity

/// Synthetic but realistic beacon readings for the estimator tests: log-normal shadowing (Gaussian
/// noise in dB), occasional deep fades, whole-dB reporting and irregular advertising intervals.
struct Signal {
    var generator: SplitMix64
    let measuredPower = -59.0

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// The RSSI the free-space model predicts at `distance` metres for this beacon.
    func rssi(at distance: Double) -> Double {
        ProximityEstimator.rssi(at: distance, measuredPower: measuredPower, pathLossExponent: 2)
    }

    mutating func uniform() -> Double { Double(generator.next() >> 11) / Double(1 << 53) }

    mutating func gaussian() -> Double {
        let u = max(uniform(), .leastNonzeroMagnitude), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    /// One reading around `mean` dBm: σ dB of noise, `fadeShare` of readings 15 dB down, rounded.
    mutating func reading(mean: Double, sigma: Double, fadeShare: Double = 0) -> Double {
        let fade = uniform() < fadeShare ? -15.0 : 0
        return (mean + sigma * gaussian() + fade).rounded()
    }

    /// Interval to the next reading at `rate` per second, jittered ±50 %.
    mutating func interval(rate: Double) -> Double { (0.5 + uniform()) / rate }
}

/// Zone changes in a sequence of zones.
func changes(_ zones: [Zone]) -> Int {
    zip(zones, zones.dropFirst()).filter { $0 != $1 }.count
}
