import BikebeaconAPI
import Testing
@testable import Server

/// The state logic on its own: a pure function of the stored heartbeat, the time and the thresholds.
@Suite struct SentinelHealthTests {
    static let healthy = SentinelHeartbeat(
        version: "0.1.0", uptimeSeconds: 3600, backend: "dbus", adapterPresent: true, adapterPowered: true, scanning: true,
        intervalSeconds: 60, reports: 900, iBeacons: 3, lastReportAgeSeconds: 0.5, missingInRange: 0, outboxDepth: 0,
        outboxOldestAgeSeconds: nil, lastDeliveryAt: nil, clockOffsetSeconds: 0.4, diskFreeBytes: 10_000_000_000,
        diskTotalBytes: 30_000_000_000, lastError: nil, lastErrorAt: nil)
    static let received: Int64 = 1_795_000_000_000
    static let thresholds = SentinelThresholds()

    static func judge(_ change: (inout SentinelHeartbeat) -> Void = { _ in }, at now: Int64 = received, revoked: Bool = false) -> SentinelVerdict {
        var beat = healthy
        change(&beat)
        return SentinelHealth.judge(heartbeat: beat, receivedMilliseconds: received, revoked: revoked, now: now, thresholds: thresholds)
    }

    @Test func aWorkingSentinelIsListening() {
        #expect(Self.judge() == SentinelVerdict(.listening))
        // Just inside every threshold is still listening.
        #expect(Self.judge({
            $0.lastReportAgeSeconds = 599; $0.outboxOldestAgeSeconds = 900; $0.clockOffsetSeconds = -120
            $0.diskFreeBytes = 1_500_000_000
        }, at: Self.received + 299_999) == SentinelVerdict(.listening))
    }

    @Test func eachProblemDegradesWithItsReason() {
        #expect(Self.judge { $0.scanning = false } == SentinelVerdict(.degraded, "not scanning"))
        #expect(Self.judge { $0.adapterPresent = false; $0.scanning = false } == SentinelVerdict(.degraded, "Bluetooth adapter missing"))
        #expect(Self.judge { $0.adapterPowered = false; $0.scanning = false } == SentinelVerdict(.degraded, "Bluetooth adapter powered off"))
        #expect(Self.judge { $0.lastReportAgeSeconds = 600 } == SentinelVerdict(.degraded, "no BLE report for 10 min"))
        // Never heard anything since start: the uptime is how long the radio has been quiet.
        #expect(Self.judge { $0.lastReportAgeSeconds = nil; $0.uptimeSeconds = 700 } == SentinelVerdict(.degraded, "no BLE report for 11 min"))
        #expect(Self.judge { $0.lastReportAgeSeconds = nil; $0.uptimeSeconds = 30 } == SentinelVerdict(.listening))
        #expect(Self.judge { $0.outboxDepth = 40; $0.outboxOldestAgeSeconds = 901 }
            == SentinelVerdict(.degraded, "outbox stuck: 40 sightings, the oldest 15 min old"))
        #expect(Self.judge { $0.clockOffsetSeconds = 121 } == SentinelVerdict(.degraded, "clock 2 min ahead of the server"))
        #expect(Self.judge { $0.clockOffsetSeconds = -3 * 3600 } == SentinelVerdict(.degraded, "clock 3 h behind the server"))
        #expect(Self.judge { $0.diskFreeBytes = 1_400_000_000 } == SentinelVerdict(.degraded, "disk almost full: 4 % free"))
        // Several at once: all named, the most basic first.
        #expect(Self.judge { $0.scanning = false; $0.clockOffsetSeconds = 500 }
            == SentinelVerdict(.degraded, "not scanning; clock 8 min ahead of the server"))
    }

    @Test func silenceIsMeasuredFromTheServersReceiptTime() {
        #expect(Self.judge(at: Self.received + 300_000) == SentinelVerdict(.silent, "no heartbeat for 5 min"))
        // However wrong the sentinel's heartbeat, silence wins: nothing is known of it now.
        #expect(Self.judge({ $0.scanning = false }, at: Self.received + 3_600_000).state == .silent)
        #expect(SentinelHealth.judge(heartbeat: nil, receivedMilliseconds: nil, revoked: false, now: Self.received,
                                     thresholds: Self.thresholds) == SentinelVerdict(.silent, "no heartbeat yet"))
    }

    @Test func revokedIsRetiredWhateverItLastSaid() {
        #expect(Self.judge(revoked: true).state == .retired)
        #expect(Self.judge({ $0.scanning = false }, at: Self.received + 3_600_000, revoked: true).state == .retired)
    }

    @Test func thresholdsAreOptions() {
        var thresholds = SentinelThresholds()
        thresholds.silentAfterMilliseconds = 30_000
        thresholds.clockOffsetSeconds = 5
        #expect(SentinelHealth.judge(heartbeat: Self.healthy, receivedMilliseconds: Self.received, revoked: false,
                                     now: Self.received + 30_000, thresholds: thresholds).state == .silent)
        var beat = Self.healthy
        beat.clockOffsetSeconds = 6
        #expect(SentinelHealth.judge(heartbeat: beat, receivedMilliseconds: Self.received, revoked: false, now: Self.received,
                                     thresholds: thresholds) == SentinelVerdict(.degraded, "clock 6 s ahead of the server"))
    }

    @Test func limitsNameTheFieldAtFault() {
        var beat = Self.healthy
        #expect(HeartbeatLimits.violation(in: beat) == nil)
        beat.reports = -1
        #expect(HeartbeatLimits.violation(in: beat)?.field == "reports")
        beat = Self.healthy
        beat.uptimeSeconds = 1e12
        #expect(HeartbeatLimits.violation(in: beat)?.field == "uptimeSeconds")
        beat = Self.healthy
        beat.diskFreeBytes = beat.diskTotalBytes.map { $0 + 1 }
        #expect(HeartbeatLimits.violation(in: beat)?.field == "diskFreeBytes")
        beat = Self.healthy
        beat.lastDeliveryAt = "yesterday"
        #expect(HeartbeatLimits.violation(in: beat)?.field == "lastDeliveryAt")
        beat = Self.healthy
        beat.version = ""
        #expect(HeartbeatLimits.violation(in: beat)?.field == "version")
        beat = Self.healthy
        beat.clockOffsetSeconds = -1.7e9  // a Pi booted in 1970 is a reading, not an error
        #expect(HeartbeatLimits.violation(in: beat) == nil)
        // The path-loss model (#44): exponents a sentinel's configuration could hold.
        beat = Self.healthy
        beat.pathLoss = SentinelPathLoss(calibration: .twoPoint, exponent: 2.35, nearFieldExponent: 2)
        #expect(HeartbeatLimits.violation(in: beat) == nil)
        beat.pathLoss?.exponent = 0
        #expect(HeartbeatLimits.violation(in: beat)?.field == "pathLoss.exponent")
        beat.pathLoss?.exponent = 2
        beat.pathLoss?.nearFieldExponent = .infinity
        #expect(HeartbeatLimits.violation(in: beat)?.field == "pathLoss.nearFieldExponent")
    }
}

/// The alert rule on its own: one mail per problem, one per recovery, none for a flap.
@Suite struct SentinelAlertTests {
    static let holdOff: Int64 = 10 * 60_000

    static func due(_ state: SentinelState, lasted: Int64, alerted: SentinelAlerts.Kind?) -> SentinelAlerts.Kind? {
        SentinelAlerts.due(state: state, since: 1_000_000, alerted: alerted, now: 1_000_000 + lasted, holdOffMilliseconds: holdOff)
    }

    @Test func aProblemIsToldOnceItHasLasted() {
        #expect(Self.due(.silent, lasted: Self.holdOff - 1, alerted: nil) == nil)
        #expect(Self.due(.silent, lasted: Self.holdOff, alerted: nil) == .problem)
        #expect(Self.due(.degraded, lasted: Self.holdOff, alerted: .recovered) == .problem)
        // Told already (degraded, then silent): no second mail.
        #expect(Self.due(.silent, lasted: Self.holdOff * 5, alerted: .problem) == nil)
    }

    @Test func aRecoveryIsToldOnlyAfterAToldProblem() {
        #expect(Self.due(.listening, lasted: Self.holdOff, alerted: .problem) == .recovered)
        #expect(Self.due(.listening, lasted: Self.holdOff - 1, alerted: .problem) == nil)
        #expect(Self.due(.listening, lasted: Self.holdOff * 9, alerted: nil) == nil)
        #expect(Self.due(.listening, lasted: Self.holdOff * 9, alerted: .recovered) == nil)
        #expect(Self.due(.retired, lasted: Self.holdOff * 9, alerted: .problem) == nil)
    }

    /// A connection that drops for 3 minutes in every 5 for an hour sends nothing: no state lasts the hold-off.
    @Test func aFlappingConnectionSendsNothing() {
        var alerted: SentinelAlerts.Kind?
        var mails = 0
        for cycle in 0..<12 {
            let start = Int64(cycle) * 300_000
            for (state, since) in [(SentinelState.silent, start), (.listening, start + 180_000)] {
                for minute in stride(from: since, to: since + 180_000, by: 15_000) {
                    if let kind = SentinelAlerts.due(state: state, since: since, alerted: alerted, now: minute, holdOffMilliseconds: Self.holdOff) {
                        alerted = kind
                        mails += 1
                    }
                }
            }
        }
        #expect(mails == 0)
    }
}
