/// Turns a filtered RSSI into a zone that changes only on clear, lasting evidence.
///
/// Two guards, both needed on real data: the filtered RSSI must cross a zone boundary by a margin
/// (so a beacon whose median sits on a boundary stays put), and the new zone must hold for a dwell
/// time (so one burst of reflections cannot flip it). The boundaries are the RSSI the
/// log-distance model predicts at `Zone.immediateLimit` and `Zone.nearLimit`.
struct ZoneHysteresis: Sendable, Equatable {
    /// How long a new zone must persist before it is reported, seconds.
    let dwell: Double
    private(set) var zone: Zone = .unknown
    private var candidate: Zone?
    private var candidateSince = 0.0

    init(dwell: Double) {
        self.dwell = dwell
    }

    /// Forget the zone, as when the beacon has gone stale.
    mutating func reset() {
        zone = .unknown
        candidate = nil
    }

    /// - Parameters:
    ///   - rssi: filtered RSSI, dBm.
    ///   - immediateAbove: RSSI at the immediate/near boundary, dBm.
    ///   - farBelow: RSSI at the near/far boundary, dBm.
    ///   - margin: how far past a boundary the RSSI must be to leave the current zone, dB.
    mutating func update(time: Double, rssi: Double, immediateAbove: Double, farBelow: Double, margin: Double) -> Zone {
        guard zone != .unknown else {
            // First evidence: take the zone the RSSI points at; hysteresis starts from there.
            zone = Self.zone(rssi: rssi, immediateAbove: immediateAbove, farBelow: farBelow)
            return zone
        }
        // Boundaries move away from the current zone by the margin: leaving needs clear evidence.
        let immediateEdge = immediateAbove + (zone == .immediate ? -margin : margin)
        let farEdge = farBelow - (zone == .far ? -margin : margin)
        let proposed = Self.zone(rssi: rssi, immediateAbove: immediateEdge, farBelow: farEdge)
        if proposed == zone {
            candidate = nil
            return zone
        }
        if candidate != proposed {
            candidate = proposed
            candidateSince = time
        }
        if time - candidateSince >= dwell {
            zone = proposed
            candidate = nil
        }
        return zone
    }

    static func zone(rssi: Double, immediateAbove: Double, farBelow: Double) -> Zone {
        if rssi > immediateAbove { return .immediate }
        if rssi < farBelow { return .far }
        return .near
    }
}
