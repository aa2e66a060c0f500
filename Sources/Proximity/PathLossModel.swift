#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Log-distance path loss with a separate slope inside 1 m: RSSI = P − 10·n·log10(d).
///
/// Receivers differ most at short range (near-field coupling, antenna patterns, receiver
/// compression): at 0.2–0.5 m a phone on herald or pcng reads 0–9 dB above its 1 m power, an
/// AirTag heard by an nRF52840 10 dB and more. One slope for d < 1 m and another beyond keeps
/// the 1 m calibration (measured power) exact and lets each side be chosen on its own.
public struct PathLossModel: Sendable, Equatable {
    /// RSSI at 1 m, dBm.
    public var measuredPower: Double
    /// Slope beyond 1 m: 2 in free space, higher indoors.
    public var exponent: Double
    /// Slope inside 1 m.
    public var nearFieldExponent: Double

    public init(measuredPower: Double, exponent: Double, nearFieldExponent: Double) {
        self.measuredPower = measuredPower
        self.exponent = exponent
        self.nearFieldExponent = nearFieldExponent
    }

    /// Metres at which `rssi` is expected.
    public func distance(rssi: Double) -> Double {
        let n = rssi > measuredPower ? nearFieldExponent : exponent
        return pow(10, (measuredPower - rssi) / (10 * n))
    }

    /// RSSI expected at `distance` metres, dBm.
    public func rssi(at distance: Double) -> Double {
        let n = distance < 1 ? nearFieldExponent : exponent
        return measuredPower - 10 * n * log10(distance)
    }

    /// d(distance)/d(rssi) at `rssi`, metres per dB (negative): carries an RSSI uncertainty into metres.
    public func slope(rssi: Double) -> Double {
        let n = rssi > measuredPower ? nearFieldExponent : exponent
        return -distance(rssi: rssi) * log(10) / (10 * n)
    }
}
