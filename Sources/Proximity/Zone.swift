/// How close a beacon is, in the terms iOS made familiar. Ordered nearest first; `unknown` last.
public enum Zone: String, Sendable, Codable, CaseIterable, Comparable {
    /// Under 0.5 m.
    case immediate
    /// 0.5 m to 3 m.
    case near
    /// Over 3 m.
    case far
    /// Stale, or not enough evidence.
    case unknown

    public static func < (lhs: Zone, rhs: Zone) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .immediate: 0
        case .near: 1
        case .far: 2
        case .unknown: 3
        }
    }

    /// The zone a distance falls in, without hysteresis.
    public init(distance: Double) {
        switch distance {
        case ..<Zone.immediateLimit: self = .immediate
        case ..<Zone.nearLimit: self = .near
        default: self = .far
        }
    }

    /// Upper bound of `immediate`, metres.
    public static let immediateLimit = 0.5
    /// Upper bound of `near`, metres.
    public static let nearLimit = 3.0
}
