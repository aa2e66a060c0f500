/// The live core's timeline, with the time the radio could not hear taken out.
///
/// A region's absence timeout measures silence. Silence while bluetoothd was dead, the adapter off
/// or discovery refused says nothing about a tag: counted, it reported a missing bike that never
/// moved as departed, and then as arrived again. So the core's clock stands still while the
/// scanner is deaf, and what leaves the core is still stamped with the wall clock (`removed` goes
/// into the stamp shift).
struct ListeningTime: Sendable {
    /// Seconds taken out of the core's timeline so far.
    private(set) var removed = 0.0
    private var last = -Double.infinity
    /// The scanner's deafness when the core's timeline began: only what comes after counts.
    private var deafAtStart: Double?

    /// Core time for `raw` (the live clock's time) when the scanner has been deaf `deaf` seconds in
    /// all. Never goes back, even if the two readings were taken a moment apart.
    mutating func coreTime(raw: Double, deaf: Double) -> Double {
        let base = deafAtStart ?? deaf
        deafAtStart = base
        let time = max(last, raw - (deaf - base))
        last = time
        removed = raw - time
        return time
    }
}
