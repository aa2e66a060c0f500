import Logging

/// Live, until the clock has been checked against the server's: the sightings written meanwhile are remembered,
/// and once it has, restamped in the outbox by what the check gave; then the gate opens and the reporter may send.
struct StampCorrection {
    private var hold = ClockHold()
    let gate: StampGate
    private let outbox: Outbox
    private let logger: Logger

    init(gate: StampGate, outbox: Outbox, logger: Logger) {
        self.gate = gate
        self.outbox = outbox
        self.logger = logger
    }

    /// After a step wrote `sightings` stamped with `shift`; `checkedShift`: the shift the check gives, once there is one.
    mutating func step(wrote sightings: [Sighting], shift: Double, checkedShift: Double?) async {
        guard let restamped = hold.step(wrote: sightings, shift: shift, checkedShift: checkedShift) else { return }
        for sighting in restamped {
            do { try await outbox.replace(sighting) } catch {
                logger.warning("cannot restamp a sighting made before the clock was checked; it goes out on the local clock",
                               metadata: ["id": "\(sighting.id)", "error": "\(error)"])
            }
        }
        gate.open()
    }
}
