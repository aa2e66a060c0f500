import Beacon
import BikebeaconAPI
import Foundation
import Locating
import Proximity
import Testing
@testable import Server

/// How the estimate reads a sentinel's sightings from its latest heartbeat (#44): how far their stamps are off
/// the server's clock, and the calibration a sighting's `rssi` and `distance` honestly imply. The distances are
/// made as the sentinel makes them (`PathLossModel` with its exponents, the tag's advertised −59 dBm at 1 m), its
/// level rounded to the whole dBm the wire carries.
@Suite struct SentinelReadingTests {
    static let twoPoint = SentinelPathLoss(calibration: .twoPoint, exponent: 2.2, nearFieldExponent: 2)
    static let onePoint = SentinelPathLoss(calibration: .onePoint, exponent: 1.5, nearFieldExponent: 2)

    /// What a sentinel with `pathLoss` sends for a tag heard at `level` dBm: the rounded level and its distance.
    static func sent(level: Double, _ pathLoss: SentinelPathLoss) -> (rssi: Int, distance: Double) {
        let model = PathLossModel(measuredPower: -59, exponent: pathLoss.exponent, nearFieldExponent: pathLoss.nearFieldExponent)
        return (Int(level.rounded()), model.distance(rssi: level))
    }

    static func reading(_ pathLoss: SentinelPathLoss?) -> SentinelReading { SentinelReading(stampOffset: nil, pathLoss: pathLoss) }

    @Test func twoPointGivesTheTagsPowerAndTheSitesExponent() throws {
        // −75 dBm at n = 2.2: 10^(16/22) = 5.34 m; back: −75 + 22·log10(5.34) = −59.
        let heard = Self.sent(level: -75, Self.twoPoint)
        #expect(abs(heard.distance - 5.337) < 0.001)
        guard case let .twoPoint(power, exponent) = Self.reading(Self.twoPoint).calibration(rssi: heard.rssi, distance: heard.distance) else {
            Issue.record("not two-point")
            return
        }
        #expect(abs(power - -59) < 1e-9 && exponent == 2.2)
        // A level between whole dBm is sent rounded: the power comes back within half a dB (−74.6 → −75 at 5.11 m: −59.4).
        let between = Self.sent(level: -74.6, Self.twoPoint)
        guard case let .twoPoint(rounded, _) = Self.reading(Self.twoPoint).calibration(rssi: between.rssi, distance: between.distance) else {
            Issue.record("not two-point")
            return
        }
        #expect(abs(rounded - -59.4) < 1e-9)
    }

    @Test func onePointBeyondAndInsideAMetre() throws {
        // −80 dBm at the default n = 1.5: 25.1 m; −50 dBm, louder than at 1 m, on the near-field n = 2: 0.355 m. Both give −59.
        for level in [-80.0, -50] {
            let heard = Self.sent(level: level, Self.onePoint)
            guard case let .onePoint(power) = Self.reading(Self.onePoint).calibration(rssi: heard.rssi, distance: heard.distance) else {
                Issue.record("not one-point at \(level) dBm")
                continue
            }
            #expect(abs(power - -59) < 1e-9, "\(level) dBm, \(heard.distance) m")
        }
        #expect(abs(Self.sent(level: -80, Self.onePoint).distance - 25.12) < 0.01)
        #expect(abs(Self.sent(level: -50, Self.onePoint).distance - 0.355) < 0.001)
    }

    @Test func claimsNothingTheDataDoesNotSay() {
        let heard = Self.sent(level: -75, Self.twoPoint)
        // Not calibrated on site; a sentinel older than #44; a sighting without a distance; a power no receiver reads at 1 m.
        #expect(Self.reading(SentinelPathLoss(calibration: .none, exponent: 2.2, nearFieldExponent: 2))
            .calibration(rssi: heard.rssi, distance: heard.distance) == .none)
        #expect(Self.reading(nil).calibration(rssi: heard.rssi, distance: heard.distance) == .none)
        #expect(Self.reading(Self.twoPoint).calibration(rssi: -75, distance: nil) == .none)
        #expect(Self.reading(Self.twoPoint).calibration(rssi: -75, distance: 0) == .none)
        #expect(Self.reading(Self.twoPoint).calibration(rssi: -40, distance: 1000) == .none, "−40 + 22·3 = +26 dBm at 1 m")
    }

    @Test func stampsAreOffTheServersClockOnlyWithinTheTolerance() {
        #expect(SentinelReading.stampOffset(clockOffset: nil) == nil)
        #expect(SentinelReading.stampOffset(clockOffset: 90) == 90)
        #expect(SentinelReading.stampOffset(clockOffset: -119.5) == -119.5)
        #expect(SentinelReading.stampOffset(clockOffset: 120) == 120)
        // Beyond 2 minutes the sentinel stamps by the server's clock (ServerTime): nothing to take off.
        #expect(SentinelReading.stampOffset(clockOffset: 240) == 0)
        #expect(SentinelReading.stampOffset(clockOffset: -1.7e9) == 0)
    }

    @Test func fromTheStoredHeartbeat() throws {
        var beat = SentinelHealthTests.healthy
        beat.clockOffsetSeconds = 90
        beat.pathLoss = Self.twoPoint
        let stored = String(decoding: try JSONEncoder().encode(beat), as: UTF8.self)
        #expect(SentinelReading(heartbeat: stored) == SentinelReading(stampOffset: 90, pathLoss: Self.twoPoint))
        // A heartbeat from before #44 (SentinelHealthTests' carries 0.4 s and no pathLoss) reads as uncalibrated.
        let older = String(decoding: try JSONEncoder().encode(SentinelHealthTests.healthy), as: UTF8.self)
        #expect(SentinelReading(heartbeat: older) == SentinelReading(stampOffset: 0.4, pathLoss: nil))
        #expect(SentinelReading(heartbeat: "not json") == nil)
    }

    /// Calibration counts (#44 goal 1): the cafe and the library, 44 m apart, both hear the bike midway at −88 dBm,
    /// which their two-point model (n = 2.2) puts 21 m off. Read as calibrated, the estimate's radius is narrower
    /// than read as uncalibrated sentinels (the default model puts −88 dBm 86 m off, with a wider spread).
    @Test func aCalibratedSentinelNarrowsTheRadius() throws {
        let sent = Self.sent(level: -88, Self.twoPoint)
        #expect(abs(sent.distance - 20.8) < 0.1)
        func heard(_ sentinel: String, _ place: (latitude: Double, longitude: Double), _ reading: SentinelReading?) -> HeardSighting {
            HeardSighting(sentinel: sentinel, time: 1_795_600_000_000, rssi: sent.rssi, distance: sent.distance, latitude: place.latitude,
                          longitude: place.longitude, gpsAccuracy: nil, enrolled: true, home: .none, reading: reading)
        }
        func estimate(_ reading: SentinelReading?) throws -> PositionEstimate {
            try #require(SightingEstimate.make([heard("Cafe Rosa", EstimateScenarios.cafe, reading), heard("Library", EstimateScenarios.library, reading)],
                                               for: .owner))
        }
        let uncalibrated = try estimate(nil), calibrated = try estimate(Self.reading(Self.twoPoint))
        #expect(uncalibrated.sources == 2 && calibrated.sources == 2)
        #expect(calibrated.radius90 < uncalibrated.radius90, "calibrated \(calibrated.radius90) m, uncalibrated \(uncalibrated.radius90) m")
    }
}
