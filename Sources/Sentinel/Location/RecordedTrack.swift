#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSD

/// A recorded gpsd session (its JSON lines, as `gpsd` sent them) played instead of a live gpsd
/// while a capture is replayed: the demo's bus drives a real recorded track with no GPS and no gpsd
/// on the machine. Its reports go through the same TPV decoder and `FixKeeper` as a live gpsd's.
///
/// Only reports with their own time can be placed on the replay's clock: the others (no fix yet, a
/// receiver's first fixes without a time) are left out. The track's clock is moved onto the
/// capture's: its first report arrives with the capture's first advertisement, and each fix's own
/// time moves with it, so a sighting's fix time is the moment of the replay it belongs to.
public struct RecordedTrack: Equatable, Sendable {
    /// The timed reports, oldest first, their `time` counted from the first one.
    public let reports: [GPSDPosition]

    /// Decodes gpsd's JSON lines; lines that are not reports are skipped, as a live client does.
    public init(gpsdJSON: some Collection<UInt8>) throws {
        var framer = GPSDLineFramer()
        var timed: [GPSDPosition] = []
        for line in framer.lines(gpsdJSON) {
            guard case let .success(.position(position)) = GPSDProtocol.decode(line), position.time != nil else { continue }
            timed.append(position)
        }
        guard let start = timed.first?.time else {
            throw ConfigurationError.invalid("the recorded track holds no gpsd TPV report with a time: it must be gpsd's JSON output (one report a line)")
        }
        reports = timed.map { report in
            var moved = report
            moved.time = (report.time ?? start) - start
            return moved
        }
    }

    /// Seconds from the first report to the last.
    public var duration: Double { reports.last?.time ?? 0 }

    /// The track's reports one by one as a replay's clock reaches them. Pure.
    struct Playback: Sendable {
        let track: RecordedTrack
        /// The replay time of the track's first report: the first time asked for.
        private var start: Double?
        private var next = 0

        init(_ track: RecordedTrack) { self.track = track }

        /// The reports due by `time`, their fix times moved onto the replay's clock.
        mutating func due(by time: Double) -> [GPSDPosition] {
            let start = self.start ?? time
            self.start = start
            var due: [GPSDPosition] = []
            while next < track.reports.count, let offset = track.reports[next].time, start + offset <= time {
                var report = track.reports[next]
                report.time = start + offset
                due.append(report)
                next += 1
            }
            return due
        }
    }
}
