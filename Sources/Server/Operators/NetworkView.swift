import BikebeaconAPI

/// The operator's view of every sentinel, from what is stored. Pure: rows in, wire values out.
enum NetworkView {
    /// A state filter's allowed values.
    static let states = SentinelState.allCases.map(\.rawValue)

    static func sentinels(_ sentinels: [Sentinel], health: [String: SentinelHealthRecord]) -> [NetworkSentinel] {
        let newest = health.values.map(\.heartbeat.version).max(by: isOlder)
        return sentinels.map { sentinel in
            let record = health[sentinel.id]
            let beat = record?.heartbeat
            let state: SentinelState = sentinel.revokedMilliseconds != nil ? .retired : record?.state ?? .silent
            let reason = state == .retired ? "revoked by the operator" : record?.reason ?? "no heartbeat yet"
            return NetworkSentinel(
                id: sentinel.id, name: sentinel.name, latitude: sentinel.latitude, longitude: sentinel.longitude,
                // `home`, not `ownerID`: a home sentinel stays one after its owner's account is deleted.
                home: sentinel.home, onCoverageMap: sentinel.onCoverageMap, state: state.rawValue, reason: reason,
                since: record.map { Timestamp.format(milliseconds: $0.stateMilliseconds) },
                lastHeartbeatAt: record.map { Timestamp.format(milliseconds: $0.receivedMilliseconds) },
                version: beat?.version, outdated: beat.flatMap { beat in newest.map { isOlder(beat.version, $0) } } ?? false,
                reportsPerMinute: beat.map { $0.intervalSeconds > 0 ? (Double($0.reports) * 60 / $0.intervalSeconds).rounded() : 0 },
                outboxDepth: beat?.outboxDepth, outboxOldestAgeSeconds: beat?.outboxOldestAgeSeconds,
                clockOffsetSeconds: beat?.clockOffsetSeconds)
        }
    }

    /// `0.9.1` before `0.10.0`: dotted numbers compared one by one (a part that is no number counts as 0).
    static func isOlder(_ a: String, _ b: String) -> Bool {
        let left = a.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 }
        let right = b.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 }
        for index in 0..<max(left.count, right.count) {
            let (l, r) = (index < left.count ? left[index] : 0, index < right.count ? right[index] : 0)
            if l != r { return l < r }
        }
        return false
    }
}
