/// Own-bike alarms, raised without holding up the scan: each in a task of its own, a few in flight at most,
/// and every one finished before the run ends.
struct AlarmDispatch {
    /// Alarms are rare; holding a few handles keeps the list bounded for a daemon.
    static let inFlightLimit = 16

    let alarm: Alarm
    let stats: Stats
    private var inFlight: [Task<Void, Never>] = []

    init(alarm: Alarm, stats: Stats) {
        self.alarm = alarm
        self.stats = stats
    }

    /// Alarms started and not yet waited for.
    var pending: Int { inFlight.count }

    mutating func raise(_ alarms: [OwnBikeAlarm]) async {
        let alarm = self.alarm
        for raised in alarms {
            await stats.alarm()
            inFlight.append(Task { await alarm.raise(raised) })
            if inFlight.count > Self.inFlightLimit { await inFlight.removeFirst().value }
        }
    }

    /// An alarm in flight finishes even when the scan has ended.
    mutating func finish() async {
        for task in inFlight { await task.value }
        inFlight = []
    }
}
