/// When the people who look after a sentinel (its host, a home sentinel's owner, the operator) are
/// told about it: one mail when it turns degraded or silent, one when it recovers. Pure.
///
/// The hold-off keeps a flapping connection from sending fifty mails: a problem is told only once
/// it has lasted `holdOff`, a recovery only after a problem was told and the sentinel has listened
/// for `holdOff` again. Degraded turning silent (or back) is the same problem: no second mail.
public enum SentinelAlerts {
    public enum Kind: String, Sendable, Equatable {
        case problem
        case recovered
    }

    /// The alert due now, if any. `alerted`: the kind last told for this sentinel (nil: none, or a recovery).
    public static func due(state: SentinelState, since: Int64, alerted: Kind?, now: Int64, holdOffMilliseconds: Int64) -> Kind? {
        guard now - since >= holdOffMilliseconds else { return nil }
        switch state {
        case .degraded, .silent: return alerted == .problem ? nil : .problem
        case .listening: return alerted == .problem ? .recovered : nil
        case .retired: return nil
        }
    }
}
