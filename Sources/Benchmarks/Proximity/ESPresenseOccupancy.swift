import Foundation

/// ESPresense's presence rule as design §5 records it, as a baseline: RSSI averaged over a
/// 15 s window inside Tukey fences (Q1 − 1.5·IQR, Q3 + 1.5·IQR), distance by log-distance with
/// n = 2.7, occupied once closer than `enterDistance` until farther than `exitDistance`;
/// forgotten after 150 s unheard.
struct ESPresenseOccupancy {
    let measuredPower: Double
    let enterDistance: Double
    let exitDistance: Double
    private var window: [(time: Double, rssi: Double)] = []
    private(set) var occupied = false

    static let windowSeconds = 15.0
    static let pathLossExponent = 2.7
    static let forgetSeconds = 150.0

    init(measuredPower: Double, enterDistance: Double, exitDistance: Double) {
        self.measuredPower = measuredPower
        self.enterDistance = enterDistance
        self.exitDistance = exitDistance
    }

    /// Takes one reading; returns whether the beacon is now counted present.
    mutating func update(time: Double, rssi: Double) -> Bool {
        if let last = window.last, time - last.time > Self.forgetSeconds {
            window.removeAll()
            occupied = false
        }
        window.append((time, rssi))
        window.removeAll { time - $0.time > Self.windowSeconds }
        let distance = pow(10, (measuredPower - fencedMean(window.map(\.rssi))) / (10 * Self.pathLossExponent))
        if !occupied, distance < enterDistance { occupied = true }
        if occupied, distance > exitDistance { occupied = false }
        return occupied
    }

    /// Mean of the values inside the Tukey fences (all of them when the fences exclude everything).
    private func fencedMean(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let q1 = quantile(sorted, 0.25), q3 = quantile(sorted, 0.75)
        let low = q1 - 1.5 * (q3 - q1), high = q3 + 1.5 * (q3 - q1)
        let kept = sorted.filter { $0 >= low && $0 <= high }
        let used = kept.isEmpty ? sorted : kept
        return used.reduce(0, +) / Double(used.count)
    }

    /// Linear-interpolated quantile of sorted, non-empty values.
    private func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let below = Int(position.rounded(.down))
        let above = min(sorted.count - 1, below + 1)
        return sorted[below] + (position - Double(below)) * (sorted[above] - sorted[below])
    }
}
