import GPSD

/// The roaming sentinel's fix, shared between the gpsd client (which writes it) and the scan loop
/// and status writer (which read it). The decisions are `FixKeeper`'s; this only holds it, and
/// times them on the sentinel's `LiveClock`: a fix's age must not jump when NTP steps the wall clock.
/// Replaying a capture with a recorded track, time is the capture's instead, moved on by `advance`.
actor RoamingLocation {
    private var keeper: FixKeeper
    private let clock: LiveClock
    private var playback: RecordedTrack.Playback?
    /// The replay's time, once `advance` has been called; the live clock's until then.
    private var replayTime: Double?

    init(maxFixAge: Double, clock: LiveClock, track: RecordedTrack? = nil) {
        keeper = FixKeeper(maxFixAge: maxFixAge)
        self.clock = clock
        playback = track.map(RecordedTrack.Playback.init)
    }

    private var now: Double { replayTime ?? clock.now }

    func take(_ position: GPSDPosition) { keeper.take(position, at: now) }

    /// A replay's clock reached `time`: the recorded track's reports due by then arrive, each at its own time.
    func advance(to time: Double) {
        guard var track = playback else { return }
        for report in track.due(by: time) { keeper.take(report, at: report.time ?? time) }
        playback = track
        replayTime = max(replayTime ?? time, time)
    }

    func place() -> SightingPlace { keeper.place(at: now) }

    func isParked() -> Bool { keeper.isParked(at: now) }

    /// For `bikebeacon status`: the fix's mode, age and accuracy, never the position.
    func status(connected: Bool) -> FixStatus {
        let now = self.now
        let report = keeper.latestReport
        return FixStatus(gpsdConnected: connected, mode: report?.position.mode.text ?? "unknown",
                         ageSeconds: keeper.last.map { now - $0.received }, accuracy: keeper.last?.position.horizontalError,
                         usable: keeper.fix(at: now) != nil, parked: keeper.isParked(at: now))
    }
}

/// What `bikebeacon status` says about a roaming sentinel's fix. Deliberately without latitude and
/// longitude: the status file and metrics may be read beyond the sentinel, its position may not.
public struct FixStatus: Codable, Equatable, Sendable {
    public var gpsdConnected: Bool
    /// gpsd's mode of the latest report: unknown, none, 2d, 3d.
    public var mode: String
    /// Seconds since the last fix with a position arrived; nil before any.
    public var ageSeconds: Double?
    /// That fix's horizontal accuracy, metres.
    public var accuracy: Double?
    /// Whether sightings made now carry a position (a fix within maxFixAge).
    public var usable: Bool
    public var parked: Bool

    var report: String {
        let age = ageSeconds.map { "last fix \(Int($0.rounded())) s ago" } ?? "no fix yet"
        let accuracy = accuracy.map { ", ±\(Int($0.rounded())) m" } ?? ""
        return "location: gpsd \(gpsdConnected ? "connected" : "not connected"), mode \(mode), \(age)\(accuracy)"
            + (usable ? (parked ? ", parked" : ", moving") : ", sightings go without a position")
    }
}
