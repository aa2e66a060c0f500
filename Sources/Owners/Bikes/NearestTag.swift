import Beacon

/// Which tag an owner means when they hold a new one next to the computer: the iBeacon heard
/// loudest. Pure: readings come in, a choice comes out; the listening is the shell's.
public struct NearestTag: Sendable {
    /// One beacon heard while listening.
    public struct Candidate: Equatable, Sendable {
        public var beacon: BeaconID
        /// The median of its readings, dBm: one loud or faded packet does not decide.
        public var medianRSSI: Double
        public var readings: Int

        public init(beacon: BeaconID, medianRSSI: Double, readings: Int) {
            self.beacon = beacon
            self.medianRSSI = medianRSSI
            self.readings = readings
        }
    }

    /// What listening settled.
    public enum Choice: Equatable, Sendable {
        case nothingHeard
        /// The loudest by a clear margin.
        case one(Candidate)
        /// Two or more within `closeWithin` of the loudest, loudest first: the owner picks.
        case close([Candidate])
    }

    /// dB within which two tags are too close to tell apart. A tag held at the computer is
    /// 20 dB or more above one a metre or two away; fading moves a median by a few dB.
    public static let closeWithin = 6.0

    private var readings: [BeaconID: [Int]] = [:]

    public init() {}

    public mutating func record(_ advertisement: Advertisement) {
        readings[advertisement.beacon, default: []].append(advertisement.rssi)
    }

    /// Every beacon heard but those in `known` (tags already on a bike), loudest first.
    public func candidates(excluding known: Set<BeaconID> = []) -> [Candidate] {
        readings.compactMap { beacon, values in
            known.contains(beacon) ? nil : Candidate(beacon: beacon, medianRSSI: Self.median(values), readings: values.count)
        }
        .sorted { ($0.medianRSSI, $0.readings, $1.beacon) > ($1.medianRSSI, $1.readings, $0.beacon) }
    }

    public func choice(excluding known: Set<BeaconID> = []) -> Choice {
        let ranked = candidates(excluding: known)
        guard let loudest = ranked.first else { return .nothingHeard }
        let close = ranked.prefix { loudest.medianRSSI - $0.medianRSSI < Self.closeWithin }
        return close.count == 1 ? .one(loudest) : .close(Array(close))
    }

    private static func median(_ values: [Int]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? Double(sorted[middle]) : Double(sorted[middle - 1] + sorted[middle]) / 2
    }
}
