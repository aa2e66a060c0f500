import Benchmarks
import Foundation
import Locating
import Proximity
import Testing

/// The locator on real rows (philotuxo straight_04), and on the cases the server meets.
struct LocatorTests {
    /// Receivers calibrated on the track itself (RSSI against true distance, as a site survey
    /// would), then without calibration, which must still beat the nearest receiver.
    @Test func findsTheTagOnARealTrack() throws {
        let calibrated = LocateBench.calibratedReceivers(Straight04.data.sensors, on: Straight04.data.tracks)
        let fixes = try Straight04.fixes(calibrated)
        try #require(fixes.count >= 15, "about one fix a second over 24 s")
        let score = FixScore(fixes), median = score.median, inside90 = try #require(score.inside90)
        // The strongest receiver's place (Bermuda) on the same fixes, for comparison.
        var grouping = try FixGrouping(receivers: Straight04.data.sensors.map(\.id), window: 3, longestWindow: 10, interval: 1)
        var nearest: [Double] = []
        for row in Straight04.rows {
            guard let group = try grouping.add(row.reading), let strongest = group.levels.max(by: { $0.rssi < $1.rssi }) else { continue }
            let sensor = Straight04.data.sensors[strongest.receiver]
            nearest.append(PlanePoint(x: sensor.x, y: sensor.y).distance(to: row.truth))
        }
        #expect(median < 2.6, "median error \(median) m")
        let nearestMedian = FixScore(errors: nearest).median
        #expect(median < nearestMedian * 0.8, "median \(median) m, nearest receiver \(nearestMedian) m")
        #expect(inside90 >= 0.7, "the truth within radius90 in \(inside90 * 100) % of fixes")
        #expect(fixes.allSatisfy { $0.fix.radius50 > 0 && $0.fix.radius90 > $0.fix.radius50 && $0.fix.receivers >= 1 })

        let uncalibrated = try Straight04.fixes(Straight04.receivers())
        let rough = FixScore(uncalibrated).median
        #expect(rough < nearestMedian, "uncalibrated median \(rough) m, nearest receiver \(nearestMedian) m")
    }

    /// A site we never saw gives no calibration, and its tag may be 12 dB weaker than iBeacon's usual
    /// -59 dBm at 1 m. Taken at face value, every receiver would seem far and the point would be
    /// pushed out of the room; the locator learns the common shift over the fixes instead.
    @Test func aWeakerTagIsLearntNotTakenForDistance() throws {
        func run(_ configuration: LocatorConfiguration) throws -> FixScore {
            var locator = try Locator(receivers: Straight04.receivers(), configuration: configuration)
            return FixScore(try Straight04.rows.compactMap { row in
                try locator.add(Reading(time: row.reading.time, receiver: row.reading.receiver, rssi: row.reading.rssi - 12)).map { ($0, row.truth) }
            })
        }
        let learnt = try run(LocatorConfiguration())
        let faceValue = try run(LocatorConfiguration(offsetSpreadUncalibrated: 0, offsetFloor: 0))
        let unshifted = FixScore(try Straight04.fixes(Straight04.receivers())).median
        #expect(learnt.median < faceValue.median * 0.7, "learnt \(learnt.median) m, at face value \(faceValue.median) m")
        #expect(learnt.median < unshifted + 1, "learnt \(learnt.median) m, the same tag at -59 dBm \(unshifted) m")
        let inside90 = try #require(learnt.inside90)
        #expect(inside90 >= 0.7, "the truth within radius90 in \(inside90 * 100) % of fixes")
    }

    /// The same walk on a site twice the size (every place doubled, every level 5 dB lower, as
    /// n = 1.65 gives): errors double and the radii double with them, so they hold as often.
    @Test func aSiteTwiceTheSizeKeepsItsRadiiHonest() throws {
        func run(scale: Double) throws -> (median: Double, radius90: Double, inside90: Double) {
            let receivers = Straight04.data.sensors.map { Receiver(id: $0.id, position: PlanePoint(x: $0.x * scale, y: $0.y * scale)) }
            var locator = try Locator(receivers: receivers)
            let fixes = try Straight04.rows.compactMap { row in
                try locator.add(Reading(time: row.reading.time, receiver: row.reading.receiver,
                                        rssi: max(-126, row.reading.rssi - 16.5 * log10(scale))))
                    .map { ($0, PlanePoint(x: row.truth.x * scale, y: row.truth.y * scale)) }
            }
            let score = FixScore(fixes)
            return (score.median, try #require(score.medianRadius90), try #require(score.inside90))
        }
        let room = try run(scale: 1), hall = try run(scale: 2)
        #expect(hall.radius90 > room.radius90 * 1.6, "radius90 \(hall.radius90) m in the hall, \(room.radius90) m in the room")
        #expect(abs(hall.inside90 - room.inside90) <= 0.15, "within radius90 \(hall.inside90 * 100) % in the hall, \(room.inside90 * 100) % in the room")
        #expect(hall.median < room.median * 2.6, "median \(hall.median) m in the hall, \(room.median) m in the room")
    }

    /// Levels that miss the model by more than the shadowing assumed (a site with more reflections):
    /// the misses are measured over the fixes and the radius grows with them.
    @Test func noisierLevelsWidenTheRadius() throws {
        let data = RectangularWithRotation.data
        let calibrated = LocateBench.calibratedReceivers(data.sensors, on: data.tracks)
        let ids = data.sensors.map(\.id), rows = RectangularWithRotation.rows
        // A fade per receiver and 5 s of the walk, 8 dB at random (seeded): reflections that come and
        // go as the tag moves, which neither a median over the window nor a calibration removes.
        var random = SplitMix64(seed: 44)
        let slots = 40
        let fades = (0..<(ids.count * slots)).map { _ in
            let u = Double.random(in: Double.ulpOfOne..<1, using: &random), v = Double.random(in: 0..<1, using: &random)
            return 8 * (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
        }
        let start = rows.first?.reading.time ?? 0
        func radii(_ configuration: LocatorConfiguration) throws -> Double {
            var locator = try Locator(receivers: calibrated, configuration: configuration)
            let fixes = try rows.compactMap { row in
                let slot = min(slots - 1, Int((row.reading.time - start) / 5)) * ids.count + (ids.firstIndex(of: row.reading.receiver) ?? 0)
                return try locator.add(Reading(time: row.reading.time, receiver: row.reading.receiver, rssi: min(-1, max(-126, row.reading.rssi + fades[slot]))))
            }
            return RSSISummary.quantile(fixes.map(\.radius90).sorted(), 0.5)
        }
        let learning = try radii(LocatorConfiguration()), assuming = try radii(LocatorConfiguration(noisePrior: 1e9))
        #expect(learning > assuming * 1.1, "radius90 \(learning) m learning the misses, \(assuming) m assuming them")
    }

    /// Receivers without a calibration read the tag through the default model, and each misses it
    /// by its own few dB (its antenna, its height, its wall), which no median over time removes: on a
    /// walk round the room the locator learns each one's shift and takes it out.
    @Test func eachReceiversOwnShiftIsLearnt() throws {
        func run(_ configuration: LocatorConfiguration) throws -> FixScore {
            FixScore(try RectangularWithRotation.fixes(RectangularWithRotation.receivers(), configuration: configuration))
        }
        let learnt = try run(LocatorConfiguration()), ignored = try run(LocatorConfiguration(shiftFixesUncalibrated: .infinity))
        #expect(learnt.median < ignored.median * 0.8, "median \(learnt.median) m learning each receiver's shift, \(ignored.median) m not")
        let inside90 = try #require(learnt.inside90)
        #expect(inside90 >= 0.8, "the truth within radius90 in \(inside90 * 100) % of fixes")
    }

    /// A site whose walls make the level fall 1.5 times as fast with distance as the default exponent
    /// says (every level moved 1.5 times as far from -59 dBm): read through the default, every
    /// distance is too long and the point is pushed to the middle. Over a walk round the room the
    /// locator learns the site's exponent from how its misses grow with distance.
    @Test func aSteeperSiteIsLearntNotTakenForDistance() throws {
        func run(_ configuration: LocatorConfiguration) throws -> FixScore {
            var locator = try Locator(receivers: RectangularWithRotation.receivers(), configuration: configuration)
            return FixScore(try RectangularWithRotation.rows.compactMap { row in
                let steeper = Reading(time: row.reading.time, receiver: row.reading.receiver, rssi: -59 + 1.5 * (row.reading.rssi + 59))
                return try locator.add(steeper).map { ($0, row.truth) }
            })
        }
        let learnt = try run(LocatorConfiguration()), ignored = try run(LocatorConfiguration(exponentFixes: .infinity))
        #expect(learnt.median < ignored.median * 0.9, "median \(learnt.median) m learning the site's exponent, \(ignored.median) m not")
        let inside90 = try #require(learnt.inside90)
        #expect(inside90 >= 0.8, "the truth within radius90 in \(inside90 * 100) % of fixes")
    }

    /// Levels that do not fall with distance at all (a stuck gain, a flat hall), which is what learning
    /// the site's exponent meets at its worst: every fix stays finite and between the receivers, with
    /// a radius.
    @Test func levelsThatDoNotFallStayBetweenTheReceivers() throws {
        var locator = try Locator(receivers: RectangularWithRotation.receivers())
        let fixes = try RectangularWithRotation.rows.enumerated().compactMap { index, row in
            try locator.add(Reading(time: row.reading.time, receiver: row.reading.receiver, rssi: -70 - Double(index % 3)))
        }
        let xs = RectangularWithRotation.data.sensors.map(\.x), ys = RectangularWithRotation.data.sensors.map(\.y)
        let site = (x: try #require(xs.min())...(try #require(xs.max())), y: try #require(ys.min())...(try #require(ys.max())))
        try #require(fixes.count > 50)
        #expect(fixes.allSatisfy { site.x.contains($0.point.x) && site.y.contains($0.point.y) })
        #expect(fixes.allSatisfy { $0.radius90.isFinite && $0.radius90 > $0.radius50 && $0.radius50 > 0 })
    }

    /// A two-point calibration measured the receiver's own exponent on site: the locator does not
    /// second-guess it, so receivers calibrated so give the same fixes whether it learns or not.
    @Test func aMeasuredExponentIsKept() throws {
        let calibrated = LocateBench.calibratedReceivers(Straight04.data.sensors, on: Straight04.data.tracks)
        try #require(calibrated.allSatisfy { $0.calibration.measuredExponent != nil })
        let learning = try Straight04.fixes(calibrated).map(\.fix)
        let fixed = try Straight04.fixes(calibrated, configuration: LocatorConfiguration(exponentFixes: .infinity)).map(\.fix)
        #expect(!learning.isEmpty && learning == fixed)
    }

    /// A receiver that reports every few seconds (a slower scanner than philotuxo's 1.9 a second):
    /// its newest reading counts in each fix for up to `longestWindow` seconds, and its place counts
    /// as off by how far the tag may have walked since, so its age widens the radius.
    @Test func aReceiverThatReportsRarelyStillCountsWithItsAge() throws {
        let receivers = [Receiver(id: "gate", position: PlanePoint(x: 0, y: 0)), Receiver(id: "shed", position: PlanePoint(x: 10, y: 0)),
                         Receiver(id: "door", position: PlanePoint(x: 5, y: 8))]
        var grouping = try FixGrouping(receivers: receivers.map(\.id), window: 3, longestWindow: 10, interval: 1)
        var groups: [FixGrouping.Group] = []
        _ = try grouping.add(Reading(time: 0, receiver: "gate", rssi: -70))
        for step in 1...24 {
            let time = Double(step) / 2
            if let group = try grouping.add(Reading(time: time, receiver: step.isMultiple(of: 2) ? "shed" : "door", rssi: -72)) { groups.append(group) }
        }
        func gate(at time: Double) -> FixGrouping.Level? {
            groups.first { $0.time == time }?.levels.first { $0.receiver == 0 }
        }
        #expect(gate(at: 2)?.age == 2, "in the window")
        #expect(gate(at: 6)?.age == 6 && gate(at: 6)?.count == 1, "older than the window, its newest reading")
        #expect(gate(at: 9)?.age == 9, "within the longest window")
        #expect(gate(at: 10) == nil && gate(at: 12) == nil, "as old as the longest window or older: left out")

        let configuration = LocatorConfiguration()
        let fresh = try #require(groups.first { $0.time == 2 }), stale = try #require(groups.first { $0.time == 6 })
        let place = { (group: FixGrouping.Group) in Locator.observations(group, receivers: receivers, configuration: configuration)[0].positionAccuracy }
        #expect(place(fresh) == 0)
        #expect(place(stale) == 6 * configuration.tagSpeed, "a walk's worth of metres for its age")
    }

    /// A tag ridden past, not walked: straight_04's walk at 1 m/s with its time divided by 3, each
    /// receiver reporting as often as before (its readings kept 1 in 3, three ways). A level is its
    /// window's median, so the fix lags by about half a window of travel; the radius grows by the
    /// speed the fixes show, and holds about as often as at a walk.
    @Test func aFastTagWidensTheRadiusByItsLag() throws {
        func inside90(_ configuration: LocatorConfiguration, speedup: Int) throws -> Double {
            var located: [(fix: Fix, truth: PlanePoint)] = []
            for phase in 0..<speedup {
                var locator = try Locator(receivers: Straight04.receivers(), configuration: configuration)
                var count: [String: Int] = [:]
                for row in Straight04.rows {
                    count[row.reading.receiver, default: 0] += 1
                    guard (count[row.reading.receiver] ?? 0) % speedup == phase else { continue }
                    var reading = row.reading
                    reading.time /= Double(speedup)
                    guard let fix = try locator.add(reading) else { continue }
                    located.append((fix, row.truth))
                }
            }
            let score = FixScore(located)
            try #require(score.fixes >= 15)
            return try #require(score.inside90)
        }
        let walked = try inside90(LocatorConfiguration(), speedup: 1)
        let ridden = try inside90(LocatorConfiguration(), speedup: 3)
        let standingStill = try inside90(LocatorConfiguration(speedSpan: 0), speedup: 3)
        #expect(ridden >= 0.8, "ridden: the truth within radius90 in \(ridden * 100) % of fixes (walked: \(walked * 100) %)")
        #expect(standingStill < ridden - 0.1, "taking the tag to stand still: \(standingStill * 100) %, by its speed: \(ridden * 100) %")
    }

    /// The speed is a line's slope through the fixes, so a still tag's jitter is not taken for motion,
    /// and its standard error says how much of a speed the scatter could make.
    @Test func speedIsTheSlopeOfTheFixes() throws {
        let ride = (0..<5).map { (time: Double($0), point: PlanePoint(x: 3 * Double($0), y: 4 * Double($0) + ($0.isMultiple(of: 2) ? 1 : -1))) }
        let jitter = (0..<5).map { (time: Double($0), point: PlanePoint(x: $0.isMultiple(of: 2) ? 1 : -1, y: 0)) }
        let riding = try #require(Motion(ride)), still = try #require(Motion(jitter))
        #expect(abs(riding.speed - 5) < 0.5 && riding.speed > 2 * riding.standardError)
        #expect(still.speed < 0.3 && still.speed < 2 * still.standardError, "jitter of ±1 m about one place: \(still)")
        #expect(Motion(Array(ride.prefix(2))) == nil, "two fixes: no line to trust")
        #expect(Motion(ride.map { (time: 7, point: $0.point) }) == nil, "all at one time")
    }

    /// Places scattered about one spot, with no motion: the least speed clears 0 about as often as asked, with 3 places or
    /// 30 (twice the standard error clears it far more often: the speed is the length of a 2-D slope, not one coordinate).
    @Test func aStillThingSeemsToMoveOnlyAsOftenAsAsked() throws {
        var random = SplitMix64(seed: 7)
        for places in [3, 30] {
            var alarms = 0, twice = 0
            for _ in 0..<4_000 {
                let track = (0..<places).map { (time: Double($0) * 10, point: PlanePoint(x: Double.random(in: -50...50, using: &random), y: Double.random(in: -50...50, using: &random))) }
                let motion = try #require(Motion(track))
                if motion.leastSpeed(falseAlarm: 0.01) > 0 { alarms += 1 }
                if motion.speed > 2 * motion.standardError { twice += 1 }
            }
            #expect((10...90).contains(alarms), "\(places) places: \(alarms) in 4000 seemed to move, asked 40")
            #expect(twice > 300, "\(places) places, twice the standard error: \(twice) in 4000")
        }
    }

    /// No look-ahead: the fixes made from the first readings do not change when later ones arrive.
    @Test func fixesUseNoLaterReading() throws {
        let all = try Straight04.fixes(Straight04.receivers())
        var locator = try Locator(receivers: Straight04.receivers())
        let half = Straight04.rows.prefix(Straight04.rows.count / 2)
        let early = try half.compactMap { try locator.add($0.reading) }
        try #require(early.count >= 10)
        #expect(Array(all.prefix(early.count).map(\.fix)) == early)
    }

    /// The two walks the tests that count how often radii held run on, each with its receivers uncalibrated.
    static let walks = [(Straight04.receivers(), Straight04.rows), (RectangularWithRotation.receivers(), RectangularWithRotation.rows)]

    /// A site with three receivers laid out around where its tag goes, not twelve (two tracks, each
    /// with 12 layouts `LocateBench.layouts` grows from receivers drawn at random): the fit has as many
    /// numbers to find as levels to find them from, and misses by more than its spread says. The
    /// radii scale by how many receivers contributed, so they hold 5 and 9 times in 10 (the
    /// multiples measured on sets drawn at random held 80 and 98 % here); the twelve receivers' scale for
    /// any count holds less often.
    @Test func fewerReceiversKeepTheirRadiiHonest() throws {
        func inside(_ configuration: LocatorConfiguration) throws -> (r50: Double, r90: Double) {
            var located: [(fix: Fix, truth: PlanePoint)] = []
            for (receivers, rows) in Self.walks {
                for three in LocateBench.layouts(receivers, size: 3, runs: 12, seed: 3) {
                    var locator = try Locator(receivers: three, configuration: configuration)
                    for row in rows where three.contains(where: { $0.id == row.reading.receiver }) {
                        if let fix = try locator.add(row.reading) { located.append((fix, row.truth)) }
                    }
                }
            }
            let score = FixScore(located)
            try #require(score.fixes >= 600)
            return (try #require(score.inside50), try #require(score.inside90))
        }
        let scaled = try inside(LocatorConfiguration())
        let twelve = try #require(LocatorConfiguration.philotuxoRadiusScales.last)
        let one = try inside(LocatorConfiguration(radiusScales: [twelve]))
        #expect((0.85...0.95).contains(scaled.r90), "within radius90 in \(scaled.r90 * 100) % of fixes")
        #expect((0.40...0.60).contains(scaled.r50), "within radius50 in \(scaled.r50 * 100) % of fixes")
        #expect(one.r50 < scaled.r50 - 0.1 && one.r90 < scaled.r90,
                "one scale for all: \(one.r50 * 100) / \(one.r90 * 100) %, by receivers: \(scaled.r50 * 100) / \(scaled.r90 * 100) %")
    }

    @Test func oneReceiverGivesItsPlaceWithAnHonestRadius() throws {
        let receiver = Receiver(id: "gate", position: PlanePoint(x: 12, y: -4), calibration: .onePoint(rssiAt1m: -60))
        var locator = try Locator(receivers: [receiver])
        var fix: Fix?
        for (second, rssi) in [-75.0, -77, -74, -76].enumerated() {
            fix = try locator.add(Reading(time: Double(second), receiver: "gate", rssi: rssi)) ?? fix
        }
        let last = try #require(fix)
        #expect(last.point.distance(to: PlanePoint(x: 12, y: -4)) < 1e-9, "\(last.point)")
        #expect(last.receivers == 1)
        // -75 dBm is about 10 m at n = 1.5: the radius must reach that far, and not be a point.
        #expect(last.radius50 > 3 && last.radius90 > 10, "radius50 \(last.radius50) m, radius90 \(last.radius90) m")
    }

    /// Each of philotuxo's receivers alone, and as three receivers at its place, on two real walks, uncalibrated. From
    /// one place a weak level says as well that the tag is far as that it is weak: a shift learnt from such fixes took
    /// the distance for the tag's power, and every later radius shrank (radius50 held 7 % alone and 3 % as three).
    @Test func receiversAtOnePlaceKeepAnHonestRadius() throws {
        var located: [(fix: Fix, truth: PlanePoint)] = []
        for (receivers, rows) in Self.walks {
            for receiver in receivers {
                let place = try #require(receiver.position)
                for copies in [1, 3] {
                    let ids = (0..<copies).map { "\(receiver.id)#\($0)" }
                    var locator = try Locator(receivers: ids.map { Receiver(id: $0, position: place) })
                    for row in rows where row.reading.receiver == receiver.id {
                        for id in ids {
                            guard let fix = try locator.add(Reading(time: row.reading.time, receiver: id, rssi: row.reading.rssi)) else { continue }
                            #expect(fix.point.distance(to: place) < 1e-9, "\(fix.point)")
                            located.append((fix, row.truth))
                        }
                    }
                }
            }
        }
        let score = FixScore(located)
        try #require(score.fixes >= 1_000)
        let r50 = try #require(score.inside50), r90 = try #require(score.inside90)
        #expect(r50 >= 0.4 && r90 >= 0.9, "within radius50 in \(r50 * 100) %, radius90 in \(r90 * 100) % of \(score.fixes) fixes")
    }

    /// Each of philotuxo's two columns of four receivers (`PlaceSpan.line`) alone, uncalibrated, on two real walks that
    /// cross the room: how far off the line the tag is and how weak it is look alike there, so the fixes teach nothing
    /// (learning from them, radius90 held 84 % along x = 7 m, the median error 4.45 m against 3.92 m now).
    @Test func receiversAlongALineKeepTheirRadius() throws {
        for column in [["sensor10", "sensor11", "sensor20", "sensor22"], ["sensor30", "sensor31", "sensor40", "sensor42"]] {
            var located: [(fix: Fix, truth: PlanePoint)] = []
            for (receivers, rows) in Self.walks {
                var locator = try Locator(receivers: receivers.filter { column.contains($0.id) })
                for row in rows where column.contains(row.reading.receiver) {
                    if let fix = try locator.add(row.reading) { located.append((fix, row.truth)) }
                }
            }
            let score = FixScore(located)
            try #require(score.fixes >= 60)
            let r90 = try #require(score.inside90)
            #expect(r90 >= 0.9, "along \(column): within radius90 in \(r90 * 100) % of \(score.fixes) fixes")
        }
    }

    /// A reflection: at each fix, the receiver farthest from the point reads as if the tag were at
    /// 1 m. Typically the point stays put and the radius grows; the centroid jumps toward it.
    @Test func disagreementGrowsTheRadiusNotTheJump() throws {
        let receivers = LocateBench.calibratedReceivers(Straight04.data.sensors, on: Straight04.data.tracks)
        let configuration = LocatorConfiguration()
        var grouping = try FixGrouping(receivers: receivers.map(\.id), window: 3, longestWindow: 10, interval: 1)
        var moves: [Double] = [], growth: [Double] = [], centroidMoves: [Double] = []
        for row in Straight04.rows {
            guard let group = try grouping.add(row.reading), group.levels.count >= 6 else { continue }
            let observations = Locator.observations(group, receivers: receivers, configuration: configuration)
            let honest = try #require(PositionFit.fit(observations, configuration: configuration))
            let far = try #require(observations.indices.max {
                observations[$0].position.distance(to: honest.point) < observations[$1].position.distance(to: honest.point)
            })
            var reflected = observations
            reflected[far].level = observations[far].rssiAt1m
            let fooled = try #require(PositionFit.fit(reflected, configuration: configuration))
            let pull = observations[far].position.distance(to: honest.point)
            moves.append(fooled.point.distance(to: honest.point) / pull)
            centroidMoves.append(fooled.centroid.distance(to: honest.centroid) / pull)
            growth.append(fooled.spread / honest.spread)
        }
        try #require(moves.count >= 10)
        let move = RSSISummary.quantile(moves.sorted(), 0.5), jump = RSSISummary.quantile(centroidMoves.sorted(), 0.5)
        let grown = RSSISummary.quantile(growth.sorted(), 0.5)
        #expect(move < 0.2, "the point moved \(move) of the way to the reflecting receiver (median)")
        #expect(jump > 0.4, "the RSSI-weighted centroid moved \(jump) of the way")
        #expect(grown > 1.3, "the spread grew \(grown) times (median)")
    }

    @Test func uncalibratedAndRoamingReceiversWidenTheRadius() throws {
        let levels = [(PlanePoint(x: 0, y: 0), -70.0), (PlanePoint(x: 10, y: 0), -72.0), (PlanePoint(x: 5, y: 8), -75.0)]
        let configuration = LocatorConfiguration()
        func spread(_ calibration: ReceiverCalibration, accuracy: Double = 0) -> Double {
            let model = configuration.model(for: calibration)
            let observations = levels.map {
                Observation(position: $0.0, level: $0.1, rssiAt1m: model.rssiAt1m, exponent: model.exponent, shadowing: model.shadowing,
                            positionAccuracy: accuracy)
            }
            return PositionFit.fit(observations, configuration: configuration)?.spread ?? .nan
        }
        let twoPoint = spread(.twoPoint(rssiAt1m: -59, exponent: 1.5))
        #expect(spread(.onePoint(rssiAt1m: -59)) > twoPoint)
        #expect(spread(.none) > spread(.onePoint(rssiAt1m: -59)))
        #expect(spread(.twoPoint(rssiAt1m: -59, exponent: 1.5), accuracy: 25) > twoPoint + 10, "a GPS fix good to 25 m")
    }

    @Test func aReceiverWithNoPlaceContributesNothingAndSaysSo() throws {
        var receivers = Straight04.receivers()
        receivers[0].position = nil
        let placed = try Straight04.fixes(receivers)
        let unplacedID = receivers[0].id
        #expect(placed.allSatisfy { !$0.fix.unplaced.isEmpty ? $0.fix.unplaced == [unplacedID] : true })
        #expect(placed.contains { $0.fix.unplaced == [unplacedID] })
        #expect(placed.allSatisfy { $0.fix.receivers <= 11 })
        // Only the unplaced receiver heard: no fix at all.
        var alone = try Locator(receivers: [Receiver(id: "bus", position: nil)])
        #expect(try alone.add(Reading(time: 0, receiver: "bus", rssi: -70)) == nil)
    }

    @Test func refusesBadInput() throws {
        var locator = try Locator(receivers: Straight04.receivers())
        #expect(throws: LocatingError.unknownReceiver("sensor99")) { try locator.add(Reading(time: 0, receiver: "sensor99", rssi: -70)) }
        #expect(throws: LocatingError.rssi(0)) { try locator.add(Reading(time: 0, receiver: "sensor10", rssi: 0)) }
        #expect(throws: LocatingError.self) { try locator.add(Reading(time: 0, receiver: "sensor10", rssi: .nan)) }
        #expect(throws: LocatingError.self) { try locator.add(Reading(time: .infinity, receiver: "sensor10", rssi: -70)) }
        _ = try locator.add(Reading(time: 100, receiver: "sensor10", rssi: -70))
        #expect(throws: LocatingError.timeWentBack(time: 90, previous: 100)) { try locator.add(Reading(time: 90, receiver: "sensor10", rssi: -70)) }
        #expect(throws: LocatingError.duplicateReceiver("a")) {
            try Locator(receivers: [Receiver(id: "a", position: PlanePoint(x: 0, y: 0)), Receiver(id: "a", position: nil)])
        }
        #expect(throws: LocatingError.self) {
            try Locator(receivers: [Receiver(id: "a", position: PlanePoint(x: 0, y: 0), calibration: .twoPoint(rssiAt1m: -60, exponent: -1))])
        }
        #expect(throws: LocatingError.calibration(receiver: "a", reason: "path-loss exponent 0.01 must lie between 0.2 and 10.0 (2 in free space)")) {
            try Locator(receivers: [Receiver(id: "a", position: PlanePoint(x: 0, y: 0), calibration: .twoPoint(rssiAt1m: -60, exponent: 0.01))])
        }
        #expect(throws: LocatingError.position(receiver: "far")) { try Locator(receivers: [Receiver(id: "far", position: PlanePoint(x: 1e308, y: 0))]) }
        #expect(throws: LocatingError.position(receiver: "gps")) {
            try Locator(receivers: [Receiver(id: "gps", position: PlanePoint(x: 0, y: 0), positionAccuracy: 1e200)])
        }
    }

    /// One estimate stays far below the 1 ms the issue allows, even in a debug build.
    @Test func oneEstimateTakesWellUnderAMillisecond() throws {
        let configuration = LocatorConfiguration()
        let observations = Straight04.data.sensors.enumerated().map { index, sensor in
            Observation(position: PlanePoint(x: sensor.x, y: sensor.y), level: -65 - Double(index), rssiAt1m: -59, exponent: 1.5, shadowing: 9)
        }
        let clock = ContinuousClock()
        let rounds = 2000
        var sink = 0.0
        let elapsed = clock.measure {
            for round in 0..<rounds {
                var varied = observations
                varied[round % varied.count].level -= 3
                sink += PositionFit.fit(varied, configuration: configuration)?.point.x ?? 0
            }
        }
        let each = elapsed / rounds
        #expect(sink.isFinite)
        #expect(each < .milliseconds(1), "\(each) per estimate with 12 receivers")
    }
}
