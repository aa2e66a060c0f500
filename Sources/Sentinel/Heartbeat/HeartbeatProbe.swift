import BikebeaconAPI
import Logging

/// The sentinel's heartbeat edge: gathers the inputs from the running parts when one is due and
/// keeps the meter. The missing-list refresh asks it for a heartbeat to carry, and tells it the
/// server's `Date` and whether the server refused the heartbeat.
public actor HeartbeatProbe {
    private var meter = HeartbeatMeter()
    private let gather: @Sendable () async -> HeartbeatInputs
    private let logger: Logger
    private var refusals = 0

    public init(logger: Logger, gather: @escaping @Sendable () async -> HeartbeatInputs) {
        self.gather = gather
        self.logger = logger
    }

    /// The heartbeat to send with a request made at `now`, or nil when one went out less than a minute ago.
    public func due(now: Double) async -> SentinelHeartbeat? {
        let inputs = await gather()
        return meter.beat(inputs, now: now)
    }

    public func serverDate(_ date: Double, sentAt: Double, receivedAt: Double) {
        meter.serverDate(date, sentAt: sentAt, receivedAt: receivedAt)
    }

    public var clockOffset: Double? { meter.clockOffset }

    /// The server would not take the heartbeat (the list was fetched again without it).
    public func refused(_ message: String) {
        refusals += 1
        if refusals % 60 == 1 {
            logger.error("the server refuses this sentinel's heartbeat, so it cannot tell whether the sentinel works; is the server older than the sentinel?",
                         metadata: ["error": "\(message)", "refusals": "\(refusals)"])
        }
    }
}
