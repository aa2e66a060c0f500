import Logging

/// The visit store: live, the open visits of missing bikes outlive the process, so a restart does not report a
/// bike that never left as arrived again. (A capture's time is its own: a replay starts afresh.)
struct VisitStore {
    let file: VisitsFile
    private let clock: LiveClock
    private let logger: Logger
    /// What was written last, unstamped, and when (core time).
    private var saved: (visits: [SightingTracker.OpenVisit], at: Double) = ([], -Double.infinity)

    init(file: VisitsFile, clock: LiveClock, logger: Logger) {
        self.file = file
        self.clock = clock
        self.logger = logger
    }

    /// The saved visits into `core`, whose time is `now`; older ones, or of bikes no longer missing, are dropped.
    mutating func restore(into core: inout SentinelCore, now: Double) {
        switch file.load() {
        case .absent:
            break
        case let .loaded(visits):
            let (restored, dropped) = core.restore(visits, now: now)
            if !visits.isEmpty {
                logger.notice("open visits from before the restart go on without a second arrival; older ones, or of bikes no longer missing, are dropped",
                              metadata: ["restored": "\(restored)", "dropped": "\(dropped)", "path": "\(file.path)"])
            }
            saved = (core.openVisits(stamped: false), clock.now)
        case let .ignored(reason):
            logger.warning("ignoring the saved open visits: missing bikes in range are reported as arrived again",
                           metadata: ["path": "\(file.path)", "reason": "\(reason)"])
        }
    }

    /// Writes the core's open visits when `VisitsFile.isDue` says so.
    mutating func save(_ core: SentinelCore) {
        let visits = core.openVisits(stamped: false)
        guard file.isDue(visits, saved: saved.visits, savedAt: saved.at, now: clock.now) else { return }
        do {
            try file.save(core.openVisits())
        } catch {
            logger.warning("cannot save the open visits; after a restart, missing bikes in range are reported as arrived again",
                           metadata: ["path": "\(file.path)", "error": "\(error)"])
        }
        saved = (visits, clock.now)
    }
}
