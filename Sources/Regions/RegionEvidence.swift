import Proximity

/// What one reading says about a beacon's membership of one region.
enum RegionEvidence {
    /// Inside by the entry rule: counts towards entering, and keeps an inside beacon inside.
    case qualifies
    /// Not close enough to enter, but within the exit margin: keeps an inside beacon inside.
    case supports
    /// Clearly outside.
    case against

    init(_ estimate: ProximityEstimate, region: Region, exitMargin: Double) {
        let limit = region.distanceLimit
        guard (region.requiredZone.map { $0 != .unknown } ?? false) || limit != nil else {
            self = .qualifies
            return
        }
        // The filtered distance against the region's own limit, not the estimator's zone: the
        // zone already carries the estimator's dwell and margin, and stacking the monitor's
        // hysteresis on top of it delayed entry by 15 s at walking pace (bench regions).
        let withinLimit = limit.map { limit in estimate.distance.map { $0 <= limit } ?? false } ?? (estimate.zone != .unknown)
        if withinLimit {
            self = .qualifies
        } else if let limit, let distance = estimate.distance, distance <= limit * (1 + exitMargin) {
            self = .supports
        } else {
            self = .against
        }
    }
}

extension Region {
    /// The tightest distance the region asks for, metres; nil when it asks for none, or only
    /// for `far` (any known distance).
    var distanceLimit: Double? {
        let zoneLimit: Double? = switch requiredZone {
        case .immediate: Zone.immediateLimit
        case .near: Zone.nearLimit
        case .far, .unknown, nil: nil
        }
        switch (zoneLimit, maximumDistance) {
        case let (z?, d?): return min(z, d)
        case let (z?, nil): return z
        case let (nil, d?): return d
        case (nil, nil): return nil
        }
    }
}
