import Benchmarks
import Foundation
import Locating
import Testing

/// The server's side: sightings in degrees, from fixed and roaming sentinels, fused into one estimate.
struct SightingFusionTests {
    /// Three fixed sentinels around a square 60 m across; the bike parked 10 m from the first.
    let frame = LocalFrame(latitude: 55.6761, longitude: 12.5683)

    func sighting(_ id: String, east: Double, north: Double, metresAway: Double, time: Double = 100,
                  clockOffset: Double? = nil, accuracy: Double? = nil, othersHome: Bool = false) -> FusionSighting {
        let place = frame.coordinates(of: PlanePoint(x: east, y: north))
        // The default model (-59 dBm at 1 m, n = 1.5) read backwards: the level at that distance.
        return FusionSighting(sentinel: id, time: time, clockOffset: clockOffset, latitude: place.latitude, longitude: place.longitude,
                              accuracy: accuracy, rssi: -59 - 15 * log10(metresAway), othersHome: othersHome)
    }

    @Test func threeSentinelsPutTheBikeBetweenThem() throws {
        let bike = PlanePoint(x: 8, y: 6)
        let places = [("cafe", 0.0, 0.0), ("library", 60.0, 0.0), ("station", 30.0, 50.0)]
        let sightings = places.map { sighting($0.0, east: $0.1, north: $0.2, metresAway: PlanePoint(x: $0.1, y: $0.2).distance(to: bike)) }
        let estimate = try #require(SightingFusion.fuse(sightings, now: 120, window: 60))
        let point = frame.point(latitude: estimate.latitude, longitude: estimate.longitude)
        #expect(point.distance(to: bike) < estimate.radius90, "\(point) vs \(bike), radius90 \(estimate.radius90) m")
        #expect(point.distance(to: bike) < 10)
        #expect(estimate.sources == ["cafe", "library", "station"] && estimate.unplaced.isEmpty && !estimate.othersHome)
        #expect(estimate.radius50 > 0 && estimate.radius90 > estimate.radius50)
    }

    /// Two sentinels 1.6 km apart each hearing the bike as 2.4 m away (the dashboard test's Cafe Rosa and Garage Nord):
    /// whichever it was near, the radius must reach it, not say 8 m around the empty middle.
    @Test func disagreeingSentinelsWidenTheRadius() throws {
        let sightings = [sighting("cafe", east: 0, north: 0, metresAway: 2.4), sighting("garage", east: 1_600, north: 0, metresAway: 2.4)]
        let estimate = try #require(SightingFusion.fuse(sightings, now: 120, window: 60))
        let point = frame.point(latitude: estimate.latitude, longitude: estimate.longitude)
        let farther = max(point.distance(to: PlanePoint(x: 0, y: 0)), point.distance(to: PlanePoint(x: 1_600, y: 0)))
        #expect(estimate.radius90 > 0.95 * farther, "radius90 \(estimate.radius90) m, the farther sentinel \(farther) m away")
        #expect(estimate.radius50 < estimate.radius90)
    }

    /// Sentinels a street apart (`bikebeacon-bench fuse`'s city, smaller): the room's 6 m prior made radius90 hold for
    /// half the estimates; scaled to the sentinels' distances it holds for at least 9 in 10, and fusing still beats
    /// the loudest sentinel's place.
    @Test func radiusHoldsAtACitysSpacing() {
        let result = FusionBench.run(.init(seconds: 300, sightingsPerSecond: 20, sentinels: 400, bikes: 40))
        #expect(result.inside90 >= 0.9 && result.inside50 >= 0.5, "within radius90 \(result.inside90), radius50 \(result.inside50)")
        #expect(result.medianError < result.baselineMedianError, "\(result.medianError) m vs \(result.baselineMedianError) m")
    }

    @Test func oneSentinelGivesItsPlaceAndAnHonestRadius() throws {
        let estimate = try #require(SightingFusion.fuse([sighting("cafe", east: 0, north: 0, metresAway: 25)], now: 120, window: 60))
        let point = frame.point(latitude: estimate.latitude, longitude: estimate.longitude)
        #expect(point.distance(to: PlanePoint(x: 0, y: 0)) < 0.01)
        #expect(estimate.radius90 > 25, "heard as 25 m away: radius90 \(estimate.radius90) m")
    }

    @Test func aClockOffByMinutesIsPlacedInItsOwnWindow() throws {
        let bike = PlanePoint(x: 8, y: 6)
        let good = sighting("cafe", east: 0, north: 0, metresAway: 10)
        // Its clock runs 5 minutes fast: stamped 400, heard at server time 100.
        let fast = sighting("library", east: 60, north: 0, metresAway: 52, time: 400, clockOffset: 300)
        // The same, with no known offset: it falls outside the window and is not fused.
        let unknown = sighting("station", east: 30, north: 50, metresAway: PlanePoint(x: 30, y: 50).distance(to: bike), time: 400)
        let estimate = try #require(SightingFusion.fuse([good, fast, unknown], now: 120, window: 60))
        #expect(estimate.sources == ["cafe", "library"])
    }

    @Test func roamingPassesAddUpAndUnplacedSightingsSaySo() throws {
        let bike = PlanePoint(x: 20, y: 0)
        // A bus passes three times, its GPS good to 8 m; once it had no fix.
        let passes = [(0.0, -15.0), (20.0, 15.0), (40.0, -15.0)].enumerated().map { index, place in
            sighting("bus", east: place.0, north: place.1, metresAway: PlanePoint(x: place.0, y: place.1).distance(to: bike),
                     time: 100 + Double(index) * 60, accuracy: 8)
        }
        let noFix = FusionSighting(sentinel: "tram", time: 150, latitude: nil, longitude: nil, rssi: -70)
        // A fix good to 1e200 m (the API takes any finite accuracy) is no place: squared, it made the radius infinite.
        let noAccuracy = sighting("ferry", east: 0, north: 0, metresAway: 5, time: 160, accuracy: 1e200)
        let estimate = try #require(SightingFusion.fuse(passes + [noFix, noAccuracy], now: 300, window: 600))
        let point = frame.point(latitude: estimate.latitude, longitude: estimate.longitude)
        #expect(point.distance(to: bike) < 10, "\(point)")
        #expect(estimate.sources == ["bus"] && estimate.unplaced == ["ferry", "tram"])
        #expect(estimate.radius90.isFinite)
        #expect(estimate.radius50 > 8 * 0.5, "no finer than the GPS: radius50 \(estimate.radius50) m")
        #expect(SightingFusion.fuse([noFix], now: 300, window: 600) == nil, "no place at all: no estimate")
    }

    @Test func anotherOwnersHomeSentinelMarksTheEstimate() throws {
        let sightings = [sighting("cafe", east: 0, north: 0, metresAway: 10), sighting("home", east: 30, north: 0, metresAway: 20, othersHome: true)]
        #expect(SightingFusion.fuse(sightings, now: 120, window: 60)?.othersHome == true)
    }
}
