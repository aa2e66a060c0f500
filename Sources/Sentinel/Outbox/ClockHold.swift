import Synchronization

/// Sightings written to the outbox before the sentinel has checked its clock against the server's (its
/// first list refresh after a start), restamped by the server's time once it is known, before any leaves.
///
/// A Pi without a real-time clock boots hours behind; `ServerTime` corrects the stamps, but only after the
/// first answer. A bike in range at boot is heard within a second, before that answer: stamped on the stale
/// clock, its arrival was dated before the sentinel's enrolment and refused, and the owner never heard of
/// it (seen in the field test). The sightings are in the outbox from the start (a crash loses nothing); the
/// reporter waits for the `StampGate` to open, at most `limit` seconds, so a sentinel that cannot reach the
/// server delivers on its own clock, as before.
struct ClockHold {
    /// Seconds the reporter waits for the check at most.
    static let limit = 30.0

    private var written: [(sighting: Sighting, shift: Double)] = []

    var isEmpty: Bool { written.isEmpty }

    /// `sightings` went into the outbox stamped with `shift`, before the clock was checked.
    mutating func remember(_ sightings: [Sighting], shift: Double) {
        written += sightings.map { ($0, shift) }
    }

    /// After a step wrote `sightings` stamped with `shift`: nil while the clock is unchecked (`checkedShift` nil), they
    /// are remembered; once it is checked, every sighting remembered, this step's included, restamped by the shift the
    /// check gave (the reporter may go). The check can land while the step writes: its sightings are moved too.
    mutating func step(wrote sightings: [Sighting], shift: Double, checkedShift: Double?) -> [Sighting]? {
        remember(sightings, shift: shift)
        guard let checkedShift else { return nil }
        return restamped(shift: checkedShift)
    }

    /// The remembered sightings moved by the shift learnt since they were made (`shift`: the stamp shift now).
    mutating func restamped(shift: Double) -> [Sighting] {
        defer { written = [] }
        return written.compactMap { $0.shift == shift ? nil : $0.sighting.shifted(by: shift - $0.shift) }
    }
}

/// Opened once the sightings made before the clock check are restamped; the reporter sends nothing before.
final class StampGate: Sendable {
    private let opened = Mutex(false)

    func open() { opened.withLock { $0 = true } }

    var isOpen: Bool { opened.withLock { $0 } }

    /// Returns when the gate opens, after `limit` seconds, or when the task is cancelled.
    func wait(limit: Double = ClockHold.limit) async {
        let deadline = ContinuousClock.now + .seconds(limit)
        while !isOpen, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}
