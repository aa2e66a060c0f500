import Benchmarks
import Foundation
import Locating
import Testing
import TestSupport

/// The server's side: sightings in degrees, from fixed and roaming sentinels, fused into one estimate.
struct SightingFusionTests {
    /// Three fixed sentinels around a square 60 m across; the bike parked 10 m from the first.
    let frame = LocalFrame(latitude: 55.6761, longitude: 12.5683)

    func sighting(_ id: String, east: Double, north: Double, metresAway: Double, time: Double = 100,
                  clockOffset: Double? = nil, accuracy: Double? = nil, othersHome: Bool = false, louder: Double = 0) -> FusionSighting {
        let place = frame.coordinates(of: PlanePoint(x: east, y: north))
        // The default model (-59 dBm at 1 m, n = 1.5) read backwards: the level at that distance.
        return FusionSighting(sentinel: id, time: time, clockOffset: clockOffset, latitude: place.latitude, longitude: place.longitude,
                              accuracy: accuracy, rssi: -59 + louder - 15 * log10(metresAway), othersHome: othersHome)
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

    /// Heard at the cafe for two minutes, then four minutes later at a garage 1.6 km away: the bike was carried there.
    /// The estimate is the garage's alone, not a circle around the empty middle. Two places make a step, not a line, so
    /// it moved but is not said to be on the move: heard three times at the cafe or once, the estimate is the same. Had
    /// the garage heard it one second after the cafe, nothing could have carried it there: a contradiction, kept whole.
    @Test func aBikeThatMovedIsWhereItWasHeardLast() throws {
        let cafe = [10.0, 60, 120].map { sighting("cafe", east: 0, north: 0, metresAway: 5, time: $0) }
        let garage = sighting("garage", east: 1_600, north: 0, metresAway: 5, time: 360)
        let garageAlone = try #require(SightingFusion.fuse([garage], now: 370, window: 400))
        for sightings in [cafe + [garage], [cafe[0], garage]] {
            let estimate = try #require(SightingFusion.fuse(sightings, now: 370, window: 400))
            let point = frame.point(latitude: estimate.latitude, longitude: estimate.longitude)
            #expect(point.distance(to: PlanePoint(x: 1_600, y: 0)) < 1 && estimate.sources == ["garage"], "\(point), from \(estimate.sources)")
            #expect(estimate == garageAlone, "\(estimate)")
        }

        var teleported = garage
        teleported.time = 121
        let contradiction = try #require(SightingFusion.fuse(cafe + [teleported], now: 130, window: 400))
        #expect(contradiction.sources == ["cafe", "garage"] && contradiction.radius90 > 700, "radius90 \(contradiction.radius90) m")

        let parked = [sighting("cafe", east: 0, north: 0, metresAway: 30, time: 10), sighting("library", east: 60, north: 0, metresAway: 30, time: 200)]
        #expect(try #require(SightingFusion.fuse(parked, now: 210, window: 400)).sources == ["cafe", "library"], "a bike between two sentinels stays heard by both")
    }

    /// A bike parked 20 m from the cafe, which hears it every 10 s for two and a half minutes and then goes silent; the
    /// library 100 m away hears it from then on. The two places make a step that a line through them would read as a
    /// ride to the library at 0.7 m/s: the bike is not on the move, and both sentinels stay, so the radius reaches it.
    @Test func aParkedBikeWhoseSentinelFellSilentIsNotOnTheMove() throws {
        let bike = PlanePoint(x: 20, y: 0)
        let sightings = stride(from: 0.0, through: 290, by: 10).map { time in
            time < 150 ? sighting("cafe", east: 0, north: 0, metresAway: 20, time: time)
                : sighting("library", east: 100, north: 0, metresAway: bike.distance(to: PlanePoint(x: 100, y: 0)), time: time)
        }
        let estimate = try #require(SightingFusion.fuse(sightings, now: 290, window: 300))
        let point = frame.point(latitude: estimate.latitude, longitude: estimate.longitude)
        #expect(estimate.speed == nil && estimate.sources == ["cafe", "library"], "\(estimate)")
        #expect(point.distance(to: bike) < estimate.radius90, "\(point.distance(to: bike)) m off, radius90 \(estimate.radius90) m")
    }

    /// Ridden down a street at 5 m/s past a sentinel every 100 m, each hearing it as it passes: the estimate follows
    /// the bike, not the middle of the five minutes' ride, and its radius still reaches it. Parked among four
    /// sentinels for as long, the bike keeps every one of them: their places scatter, they do not drift.
    @Test func aBikeOnTheMoveIsWhereItWasHeardLast() throws {
        func truth(_ time: Double) -> PlanePoint { PlanePoint(x: 5 * time, y: 8) }
        let ride = stride(from: 0.0, through: 290, by: 10).map { time -> FusionSighting in
            let street = (truth(time).x / 100).rounded() * 100
            return sighting("s\(Int(street))", east: street, north: 0, metresAway: PlanePoint(x: street, y: 0).distance(to: truth(time)), time: time)
        }
        let followed = try #require(SightingFusion.fuse(ride, now: 290, window: 300))
        let kept = try #require(SightingFusion.fuse(ride, now: 290, window: 300, parked: true))
        let error = frame.point(latitude: followed.latitude, longitude: followed.longitude).distance(to: truth(290))
        let middle = frame.point(latitude: kept.latitude, longitude: kept.longitude).distance(to: truth(290))
        #expect(error < 60 && error < followed.radius90, "\(error) m off, radius90 \(followed.radius90) m, from \(followed.sources)")
        #expect(middle > 300, "keeping the whole ride: \(middle) m behind")
        #expect(abs((followed.speed ?? 0) - 5) < 1, "on the move at \(followed.speed ?? 0) m/s")
        #expect(kept.speed == nil)

        let corners = [(0.0, 0.0), (100, 0), (0, 100), (100, 100)]
        let parked = stride(from: 0.0, through: 290, by: 10).enumerated().map { index, time in
            let corner = corners[index % 4]
            return sighting("c\(index % 4)", east: corner.0, north: corner.1, metresAway: PlanePoint(x: corner.0, y: corner.1).distance(to: PlanePoint(x: 40, y: 55)), time: time)
        }
        let still = try #require(SightingFusion.fuse(parked, now: 290, window: 300))
        #expect(still.sources == ["c0", "c1", "c2", "c3"] && still.speed == nil)
    }

    /// Sentinels a street apart (`bikebeacon-bench fuse`'s city, smaller): the room's 6 m prior made radius90 hold for
    /// half the estimates; scaled to the sentinels' distances it holds for at least 9 in 10, and fusing still beats
    /// the loudest sentinel's place, also where levels fall faster than the sentinels' model says (a street's 2 and
    /// 2.5 against 1.5), where the fit's point alone ran off beyond the sentinels (`bikebeacon-bench fuse`: 1.6 and 5.7
    /// times the pin's error; here 1.9 and 6.6).
    @Test(.cpuBound, arguments: [1.5, 2, 2.5]) func radiusHoldsAtACitysSpacing(exponent: Double) {
        let result = FusionBench.run(.init(seconds: 300, sightingsPerSecond: 20, sentinels: 400, bikes: 40, exponent: exponent))
        #expect(result.inside90 >= 0.9 && result.inside50 >= 0.5, "within radius90 \(result.inside90), radius50 \(result.inside50)")
        #expect(result.medianError < 0.6 * result.baselineMedianError, "\(result.medianError) m vs \(result.baselineMedianError) m")
    }

    /// The same city, parked: whether any of the four sentinels around a bike hears it each time, or one at a time with
    /// the next round taking over every minute, its estimate says it is on the move at most 1 time in 100 (twice the
    /// slope's standard error, counting each sighting, said so 12 and 87 times in 100). Ridden at 5 m/s, most say so.
    @Test(.cpuBound) func aParkedBikeIsNotSaidToBeOnTheMove() {
        for handover in [nil, 60.0] {
            let parked = FusionBench.run(.init(seconds: 300, sightingsPerSecond: 20, sentinels: 400, bikes: 40, handover: handover))
            #expect(parked.onTheMove <= 0.01, "handover \(handover ?? 0) s: \(parked.onTheMove * 100) % said to be on the move")
        }
        let ridden = FusionBench.run(.init(seconds: 300, sightingsPerSecond: 20, sentinels: 400, bikes: 40, riddenSpeed: 5))
        #expect(ridden.onTheMove >= 0.7, "ridden: \(ridden.onTheMove * 100) % said to be on the move")
    }

    /// The most the server fuses at once (`SightingFusion.mostSightings`): five buses' 500 fixes of a parked bike, or
    /// 500 fixed sentinels round it, each fix and each sentinel its own observation, with levels falling as the
    /// default model says (1.5) or faster, as in a street (2 and 2.5). Each lands within radius50 of the bike. Before
    /// the fit took a common shift of the levels, the steeper ones put it up to 90 m (buses) and 330 m (fixed) off at 2,
    /// 300 and 900 m at 2.5, over twelve seeds; the fixed ones at 2 fail here.
    @Test(arguments: [1.5, 2, 2.5]) func theLargestWindowLandsAroundTheBike(exponent: Double) throws {
        let windows = FusionBench.largestWindows(exponent: exponent)
        for (kind, sightings) in [("buses", windows.roaming), ("fixed", windows.fixed)] {
            let estimate = try #require(SightingFusion.fuse(sightings, now: sightings.map(\.time).max() ?? 0, window: FusionBench.Setup().window), "\(kind)")
            let error = windows.frame.point(latitude: estimate.latitude, longitude: estimate.longitude).distance(to: PlanePoint(x: 0, y: 0))
            #expect(error <= estimate.radius50, "\(kind), exponent \(exponent): \(error) m off, radius50 \(estimate.radius50) m")
        }
    }

    /// Eight sentinels 100 m apart round a parked bike; the farthest, 150 m off, reads it 5 to 20 dB too loud (a
    /// reflection). Beyond 100 m the levels barely change with place, so the others cannot gainsay it: at 20 dB the
    /// place goes to it, 146 m from the bike, as the fit's point does. The radius must still reach the bike.
    @Test func aSentinelReadingTooLoudWidensTheRadius() throws {
        let bike = PlanePoint(x: 80, y: 110)
        let places = [(0.0, 0.0), (100, 0), (200, 0), (0, 100), (200, 100), (0, 200), (100, 200), (200, 200)]
        let honest = places.enumerated().map { index, place in
            sighting("s\(index)", east: place.0, north: place.1, metresAway: PlanePoint(x: place.0, y: place.1).distance(to: bike))
        }
        let alone = try #require(SightingFusion.fuse(honest, now: 120, window: 60))
        #expect(frame.point(latitude: alone.latitude, longitude: alone.longitude).distance(to: bike) < 5)
        for loud in [5.0, 10, 15, 20] {
            var sightings = honest
            sightings[7].rssi += loud
            let estimate = try #require(SightingFusion.fuse(sightings, now: 120, window: 60))
            let error = frame.point(latitude: estimate.latitude, longitude: estimate.longitude).distance(to: bike)
            #expect(error <= estimate.radius90 && estimate.radius90 > alone.radius90,
                    "\(loud) dB too loud: \(error) m off, radius90 \(estimate.radius90) m (\(alone.radius90) m without)")
        }
    }

    /// Four sentinels 100 m apart hear a bike parked 20 to 200 m outside them, all from one side, at the levels the model
    /// gives. With the tag's power unknown the fit keeps its point among them, 25–30 m inside from 150 m out; each
    /// sentinel hears the bike farther off than the point is, and the radius grows by that: without it, radius90 was
    /// 128 and 131 m with the bike 176 and 230 m off.
    @Test func aBikeOutsideTheSentinelsWidensTheRadius() throws {
        let places = [(0.0, 0.0), (100, 0), (0, 100), (100, 100)]
        for beyond in [20.0, 50, 100, 150, 200] {
            let bike = PlanePoint(x: 30, y: -beyond)
            let sightings = places.enumerated().map { index, place in
                sighting("s\(index)", east: place.0, north: place.1, metresAway: PlanePoint(x: place.0, y: place.1).distance(to: bike))
            }
            let estimate = try #require(SightingFusion.fuse(sightings, now: 120, window: 60))
            let point = frame.point(latitude: estimate.latitude, longitude: estimate.longitude)
            #expect(point.distance(to: bike) <= estimate.radius90, "\(beyond) m outside: \(point.distance(to: bike)) m off, radius90 \(estimate.radius90) m")
        }
    }

    /// The same bike 100 m outside, each sentinel's level off the model by −4, 0 or +4 dB, all 81 ways. Where the
    /// levels' errors make the far sentinels seem nearer, the fit puts the bike inside the square, and a weaker tag there
    /// explains the levels as well as the truth does; the scan of where else the levels allow it (`LevelRegion`) widens
    /// the radius to reach out there (radius90 reached the bike in 47 of the 81 before it, now 62).
    @Test func levelsThatMistakeTheSideStillReachTheBike() throws {
        let places = [(0.0, 0.0), (100, 0), (0, 100), (100, 100)]
        let bike = PlanePoint(x: 30, y: -100)
        var reached = 0
        for pattern in 0..<81 {
            let errors = [1, 3, 9, 27].map { Double(pattern / $0 % 3 - 1) * 4 }
            let sightings = places.enumerated().map { index, place in
                sighting("s\(index)", east: place.0, north: place.1, metresAway: PlanePoint(x: place.0, y: place.1).distance(to: bike), louder: errors[index])
            }
            let estimate = try #require(SightingFusion.fuse(sightings, now: 120, window: 60))
            if frame.point(latitude: estimate.latitude, longitude: estimate.longitude).distance(to: bike) <= estimate.radius90 { reached += 1 }
        }
        #expect(reached >= 56, "radius90 reached a bike 100 m outside in \(reached) of 81 ways its levels can be off by 4 dB")
    }

    /// philotuxo's tracks read as the server reads sightings (`FusionBench.room`): 12 uncalibrated fixed sentinels in a
    /// room, a tag carried through it, the camera's ground truth. On every track the estimate beats the loudest
    /// receiver's place, and radius90 reaches the tag at least 9 times in 10 (1.9–2.7 m against 2.4–4.5 m, radius90
    /// 94–100 %; the convex hull for `SightingFusion.among`'s box put one track behind).
    @Test func realRowsBeatTheLoudestReceiverWithinTheRadius() throws {
        guard Paths.hasSharedData else {
            print("skipped: no shared data at \(Paths.sharedData.path)")
            return
        }
        let rows = FusionBench.room(try PhilotuxoPositions.load(dataDirectory: Paths.sharedData.appendingPathComponent("rssi")))
        #expect(rows.count == 10)
        for row in rows {
            #expect(row.estimates > 0 && row.medianError < row.loudestMedianError, "\(row.name): \(row.medianError) m against \(row.loudestMedianError) m")
            #expect(row.inside90 >= 0.9, "\(row.name): within radius90 \(row.inside90 * 100) %")
        }
    }

    @Test func oneSentinelGivesItsPlaceAndAnHonestRadius() throws {
        let estimate = try #require(SightingFusion.fuse([sighting("cafe", east: 0, north: 0, metresAway: 25)], now: 120, window: 60))
        let point = frame.point(latitude: estimate.latitude, longitude: estimate.longitude)
        #expect(point.distance(to: PlanePoint(x: 0, y: 0)) < 0.01)
        #expect(estimate.radius90 > 25, "heard as 25 m away: radius90 \(estimate.radius90) m")
    }

    /// Two sentinels in one cafe (one enrolled place) hear the bike as 25 m away: they can no more tell which way it is
    /// than one can, so the estimate is the cafe with one sentinel's radius, not a circle half as wide around it.
    @Test func sentinelsAtOnePlaceCountAsOne() throws {
        let one = try #require(SightingFusion.fuse([sighting("cafe", east: 0, north: 0, metresAway: 25)], now: 120, window: 60))
        let two = try #require(SightingFusion.fuse([sighting("cafe", east: 0, north: 0, metresAway: 25),
                                                    sighting("cafe-back", east: 0.2, north: 0, metresAway: 25)], now: 120, window: 60))
        let point = frame.point(latitude: two.latitude, longitude: two.longitude)
        #expect(point.distance(to: PlanePoint(x: 0, y: 0)) < 0.5, "\(point)")
        #expect(two.sources == ["cafe", "cafe-back"])
        #expect(abs(two.radius50 - one.radius50) < 0.5 && abs(two.radius90 - one.radius90) < 1,
                "one sentinel \(one.radius50)/\(one.radius90) m, two at its place \(two.radius50)/\(two.radius90) m")
    }

    /// Three sentinels 40 m apart down one street hear a bike parked 5 to 40 m across it: which side, no level can tell.
    /// The point stays on the street, and radius90 reaches the bike.
    @Test func aRowOfSentinelsReachesAcrossTheStreet() throws {
        for across in [5.0, 15, 25, 40] {
            for along in [0.0, 20, 40] {
                let bike = PlanePoint(x: along, y: across)
                let sightings = [("bakery", 0.0), ("kiosk", 40), ("garage", 80)].map { name, east in
                    sighting(name, east: east, north: 0, metresAway: PlanePoint(x: east, y: 0).distance(to: bike))
                }
                let estimate = try #require(SightingFusion.fuse(sightings, now: 120, window: 60))
                let point = frame.point(latitude: estimate.latitude, longitude: estimate.longitude)
                #expect(abs(point.y) < 0.01, "\(point)")
                #expect(point.distance(to: bike) <= estimate.radius90, "bike at \(bike): \(point), radius90 \(estimate.radius90) m")
            }
        }
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

        // One pass, its fixes drifting along the road at the bus's 10 m/s: the bus moves, not the bike.
        let pass = stride(from: -40.0, through: 40, by: 20).enumerated().map { index, east in
            sighting("bus", east: bike.x + east, north: -15, metresAway: PlanePoint(x: bike.x + east, y: -15).distance(to: bike),
                     time: 100 + Double(index) * 2, accuracy: 8)
        }
        let passed = try #require(SightingFusion.fuse(pass, now: 130, window: 600))
        let along = frame.point(latitude: passed.latitude, longitude: passed.longitude).x - bike.x
        #expect(abs(along) < 10, "the pass adds up: \(along) m along the road from the bike, not at the last fix 40 m on")
        #expect(passed == SightingFusion.fuse(pass, now: 130, window: 600, parked: true), "its drift is not the bike's motion")
    }

    /// Any window the server may hold: places anywhere on Earth (poles and the antimeridian too), GPS accuracies from 0 to
    /// beyond any use, levels in and out of range, clocks off, calibrations at the ends of what is accepted. An estimate
    /// is a place on Earth with finite radii, radius90 no less than radius50; nothing crashes.
    @Test func anyWindowGivesAFiniteEstimate() {
        var random = SplitMix64(seed: 19)
        var estimates = 0
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
        for _ in 0..<3_000 {
            let centre = (latitude: pick([Double.random(in: -90...90, using: &random), 90, -90, 0]),
                          longitude: pick([Double.random(in: -180...180, using: &random), 180, -180, 179.9999]))
            let spread = pick([0.0, 1e-5, 1e-3, 0.1, 5])
            let sightings = (0..<Int.random(in: 1...40, using: &random)).map { index -> FusionSighting in
                let placed = Int.random(in: 0..<10, using: &random) > 0
                let latitude = min(90, max(-90, centre.latitude + Double.random(in: -spread...spread, using: &random)))
                let longitude = min(180, max(-180, centre.longitude + Double.random(in: -spread...spread, using: &random)))
                return FusionSighting(sentinel: "s\(Int.random(in: 0..<6, using: &random))", time: Double(index) * pick([0, 0.5, 30]),
                                      clockOffset: pick([nil, 0, 90, -7_200]), latitude: placed ? latitude : nil, longitude: placed ? longitude : nil,
                                      accuracy: pick([nil, 0, 8, 2_000, 1e12]), rssi: pick([Double.random(in: -110 ... -20, using: &random), -127, 20, -30]),
                                      calibration: pick([.none, .onePoint(rssiAt1m: -100), .onePoint(rssiAt1m: 0),
                                                         .twoPoint(rssiAt1m: -59, exponent: 0.2), .twoPoint(rssiAt1m: -40, exponent: 10)]))
            }
            guard let estimate = SightingFusion.fuse(sightings, now: sightings.map(\.serverTime).max() ?? 0, window: 300) else { continue }
            estimates += 1
            #expect((-90...90).contains(estimate.latitude) && (-180...180).contains(estimate.longitude)
                    && estimate.radius50.isFinite && estimate.radius90.isFinite && estimate.radius50 >= 0 && estimate.radius90 >= estimate.radius50,
                    "\(estimate) from \(sightings)")
        }
        #expect(estimates > 1_500, "\(estimates) of 3000 windows made an estimate (1810 when written)")
    }

    @Test func anotherOwnersHomeSentinelMarksTheEstimate() throws {
        let sightings = [sighting("cafe", east: 0, north: 0, metresAway: 10), sighting("home", east: 30, north: 0, metresAway: 20, othersHome: true)]
        #expect(SightingFusion.fuse(sightings, now: 120, window: 60)?.othersHome == true)
    }
}
