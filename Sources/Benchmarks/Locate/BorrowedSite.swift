import Locating

/// A site the locator's constants never saw, made of another set's real readings: receivers on new
/// layouts, a tag walking there between random places with pauses, and each receiver's RSSI drawn
/// in order from one pair's readings (a tag and a receiver measured at fixed distances) at the
/// distance nearest the tag's. Another tag, another radio, another room's multipath: airtag-nrf52's
/// level (an AirTag and an nRF52840) is flat from 2 to 8 m and not monotone (a fade at 1 m, a peak at
/// 8.5), where philotuxo falls steadily. A pair hears nothing beyond its farthest measured distance.
/// A set measured to less than `fullReach` (pcng's phones to 5 m, herald's to 3) gets the same layouts
/// shrunk to its reach, height and all, so each receiver still hears the tag across most of the site.
///
/// Not a real walk: each receiver's readings come from a standing measurement, with no body in the
/// way and no correlation between receivers. What it tests is whether the radius still holds, and
/// how ours fares against the anchors, where the levels say much less than on philotuxo.
public enum BorrowedSite {
    public struct Layout: Sendable {
        /// "shed": what kind of place.
        public var kind: String
        /// "4 in the corners": where its receivers are.
        public var placement: String
        public var width: Double
        public var depth: Double
        public var receivers: [PlanePoint]

        /// "shed 10x8 m, 4 in the corners"; a shrunk one's sides to the decimetre.
        public var name: String {
            func side(_ metres: Double) -> String { fmt(metres, metres == metres.rounded() ? 0 : 1) }
            return "\(kind) \(side(width))x\(side(depth)) m, \(placement)"
        }
    }

    public static let layouts: [Layout] = [
        Layout(kind: "shed", placement: "4 in the corners", width: 10, depth: 8,
               receivers: [(0, 0), (10, 0), (0, 8), (10, 8)].map { PlanePoint(x: $0.0, y: $0.1) }),
        Layout(kind: "room", placement: "6 on the walls", width: 12, depth: 10,
               receivers: [(0, 0), (6, 0), (12, 0), (0, 10), (6, 10), (12, 10)].map { PlanePoint(x: $0.0, y: $0.1) }),
        Layout(kind: "hall", placement: "9 on a grid", width: 20, depth: 16,
               receivers: [0.0, 10, 20].flatMap { x in [0.0, 8, 16].map { PlanePoint(x: x, y: $0) } }),
        Layout(kind: "corridor", placement: "6 zigzag", width: 30, depth: 4,
               receivers: [(0, 0), (6, 4), (12, 0), (18, 4), (24, 0), (30, 4)].map { PlanePoint(x: $0.0, y: $0.1) }),
    ]

    /// Receivers hang this high above the tag, metres (philotuxo's 2.3 m sensors, a tag at 1 m), on the full-size layouts.
    static let fullHeight = 1.3
    /// How far a set's pairs must be measured for the full-size layouts, metres.
    public static let fullReach = 8.5
    /// The real sets a site is made of, each with how far its pairs were measured, metres.
    public static let sets: [(source: ExtraRSSIDatasets.Source, reach: Double)] = [
        (.airtagNRF52, fullReach), (.pcng, 5), (.lanfer, 4), (.herald, 3),
    ]
    /// Fewer pairs, and one radio would stand in too many of a layout's places.
    static let fewestPairs = 4
    public static let seconds = 600.0
    static let walkingSpeed = 1.0
    public static let seeds = 3

    /// One layout under one calibration, pooled over `seeds` walks.
    public struct Row: Sendable {
        public var layout: String
        /// "none", or "one-point": each receiver's rssi_1m is its pair's own median at 1 m, as an
        /// installer standing 1 m off would measure it, fade and all.
        public var calibration: String
        /// "ours" first, then the anchors, as `LocateBench.Result.methods`.
        public var scores: [FixScore]
    }

    /// The layouts with every length times `scale`.
    public static func layouts(scale: Double) -> [Layout] {
        layouts.map { layout in
            Layout(kind: layout.kind, placement: layout.placement, width: layout.width * scale, depth: layout.depth * scale,
                   receivers: layout.receivers.map { PlanePoint(x: $0.x * scale, y: $0.y * scale) })
        }
    }

    /// On the layouts shrunk to `reach` (the full size at `fullReach`), from the pairs measured from 0.5 m to `reach`; when there
    /// are fewer such pairs than a layout has receivers, some pairs serve two (the same radio in two places). Nil under
    /// `fewestPairs` pairs. `kinds`: only the layouts of these kinds ("room"); nil, all.
    public static func run(_ dataset: RSSIDataset, reach: Double = fullReach, configuration: LocatorConfiguration = .init(),
                           kinds: Set<String>? = nil, calibrations: [String] = ["none", "one-point"]) -> [Row]? {
        let pairs = dataset.receivers.compactMap { Pair($0, reach: reach) }.sorted { $0.name < $1.name }
        guard pairs.count >= fewestPairs else { return nil }
        let scale = reach / fullReach
        return calibrations.flatMap { calibration in
            layouts(scale: scale).filter { kinds?.contains($0.kind) ?? true }.map { layout in
                var errors = [[Double]](repeating: [], count: LocateBench.Result.methods.count)
                var radii: [(r50: Double, r90: Double)] = []
                for seed in 0..<seeds {
                    let walk = walk(layout, seed: seed, height: fullHeight * scale)
                    errors = zip(errors, walk.errors(pairs, calibrated: calibration != "none", configuration: configuration, radii: &radii)).map { $0 + $1 }
                }
                return Row(layout: layout.name, calibration: calibration,
                           scores: errors.enumerated().map { FixScore(errors: $1, radii: $0 == 0 ? radii : nil) })
            }
        }
    }

    /// One (experiment, tag) pair's readings by measured distance.
    struct Pair {
        var name: String
        var measuredPower: Double
        /// Distances ascending, each with its readings in the order taken.
        var bins: [(distance: Double, rssi: [Double])]

        init?(_ receiver: RSSIReceiver, reach: Double) {
            var byDistance: [Double: [Double]] = [:]
            for stream in receiver.streams { byDistance[stream.distance, default: []] += stream.rssi }
            bins = byDistance.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            guard let nearest = bins.first?.distance, let farthest = bins.last?.distance, nearest <= 0.5, farthest >= reach,
                  bins.reduce(0, { $0 + $1.rssi.count }) >= 300 else { return nil }
            name = receiver.name
            measuredPower = receiver.measuredPower
        }

        /// The bin nearest `distance`, when one lies within half the set's step there (0.1 m to 2 m, 0.5 m beyond).
        func bin(at distance: Double) -> Int? {
            guard let index = bins.indices.min(by: { abs(bins[$0].distance - distance) < abs(bins[$1].distance - distance) }) else { return nil }
            return abs(bins[index].distance - distance) <= (bins[index].distance < 2.05 ? 0.3 : 0.6) ? index : nil
        }
    }

    /// A tag's walk on `layout`: straight lines at walking pace between random places, with a pause
    /// of 5-30 s at half of them (a bike wheeled in and left, then moved).
    struct Walk {
        var layout: Layout
        var seed: Int
        /// How high the receivers hang above the tag, metres.
        var height: Double
        /// Times ascending.
        var points: [(time: Double, place: PlanePoint)]

        func place(at time: Double) -> PlanePoint {
            guard let after = points.firstIndex(where: { $0.time >= time }) else { return points[points.count - 1].place }
            guard after > 0 else { return points[0].place }
            let (t0, p0) = points[after - 1], (t1, p1) = points[after]
            let f = t1 > t0 ? (time - t0) / (t1 - t0) : 0
            return PlanePoint(x: p0.x + f * (p1.x - p0.x), y: p0.y + f * (p1.y - p0.y))
        }

        /// Errors of ours then each anchor at ours' fixes; ours' radii appended to `radii`.
        func errors(_ pairs: [Pair], calibrated: Bool, configuration: LocatorConfiguration, radii: inout [(r50: Double, r90: Double)]) -> [[Double]] {
            var random = SplitMix64(seed: UInt64(seed) &* 7919 &+ UInt64(layout.receivers.count))
            let shuffled = pairs.shuffled(using: &random)
            let assigned = layout.receivers.indices.map { shuffled[$0 % shuffled.count] }
            let receivers = zip(layout.receivers, assigned).enumerated().map { index, entry in
                Receiver(id: "r\(index)", position: entry.0, calibration: calibrated ? .onePoint(rssiAt1m: entry.1.measuredPower) : .none)
            }
            var readings: [Reading] = []
            for (index, (receiver, pair)) in zip(receivers, assigned).enumerated() {
                var cursors: [Int: Int] = [:]
                var time = Double.random(in: 0..<1, using: &random)
                while time < BorrowedSite.seconds {
                    let place = self.place(at: time), at = layout.receivers[index]
                    let distance = ((place.x - at.x) * (place.x - at.x) + (place.y - at.y) * (place.y - at.y) + height * height).squareRoot()
                    if let bin = pair.bin(at: distance) {
                        let values = pair.bins[bin].rssi
                        let cursor = (cursors[bin] ?? Int.random(in: 0..<values.count, using: &random)) + 1
                        cursors[bin] = cursor
                        readings.append(Reading(time: time, receiver: receiver.id, rssi: values[cursor % values.count]))
                    }
                    time += Double.random(in: 0.5..<1.5, using: &random)
                }
            }
            readings.sort { $0.time < $1.time }
            guard var locator = try? Locator(receivers: receivers, configuration: configuration),
                  var grouping = try? FixGrouping(receivers: receivers.map(\.id), configuration: configuration)
            else { return [] }
            let bounds = LocateAnchor.Bounds(lower: [-1, -1, 0], upper: [layout.width + 1, layout.depth + 1, 3])
            var errors = [[Double]](repeating: [], count: LocateBench.Result.methods.count)
            for reading in readings {
                // The anchors take the same groups the locator makes from the same readings.
                let group = try? grouping.add(reading)
                guard let fix = try? locator.add(reading), let group else { continue }
                let truth = place(at: fix.time)
                errors[0].append(fix.point.distance(to: truth))
                radii.append((fix.radius50, fix.radius90))
                let nodes = LocateBench.anchorNodes(group, receivers, configuration) { (layout.receivers[$0].x, layout.receivers[$0].y, height + 1) }
                for (m, anchor) in LocateAnchor.allCases.enumerated() {
                    errors[m + 1].append(anchor.locate(nodes, bounds: bounds).distance(to: truth))
                }
            }
            return errors
        }
    }

    static func walk(_ layout: Layout, seed: Int, height: Double) -> Walk {
        var random = SplitMix64(seed: UInt64(seed) &+ 1)
        func anywhere() -> PlanePoint {
            PlanePoint(x: Double.random(in: 0...layout.width, using: &random), y: Double.random(in: 0...layout.depth, using: &random))
        }
        var time = 0.0, here = anywhere()
        var points = [(time, here)]
        while time < seconds {
            let next = anywhere()
            time += here.distance(to: next) / walkingSpeed
            here = next
            points.append((time, here))
            if Bool.random(using: &random) {
                time += Double.random(in: 5...30, using: &random)
                points.append((time, here))
            }
        }
        return Walk(layout: layout, seed: seed, height: height, points: points)
    }
}
