import Proximity

/// How each receiver's model is set before a stream is scored: the one- and two-point site
/// calibration of issue 24, each from the receiver's own constant-distance streams.
public enum BenchCalibration: String, Sendable, CaseIterable {
    /// Measured power from the streams nearest 1 m; each method keeps its own exponent.
    case onePoint = "one-point"
    /// Also the streams nearest 3 m: RSSI at 1 m and the exponent fitted to both (`SiteCalibration`).
    case twoPoint = "two-point"

    /// The receiver's measured power and, for two-point, its fitted exponent: nil when its
    /// nearest stream to 3 m is also its nearest to 1 m, or the two points do not weaken with
    /// distance (the fit is refused), where two-point calibration falls back to one-point.
    public func model(_ receiver: RSSIReceiver) -> (measuredPower: Double, exponent: Double?) {
        guard self == .twoPoint, let second = Self.secondPoint(receiver),
              let fit = try? SiteCalibration.fit([CalibrationPoint(distance: 1, rssi: receiver.measuredPower), second], exponent: 2) else {
            return (receiver.measuredPower, nil)
        }
        return (fit.measuredPower, fit.exponent)
    }

    /// The median of the streams nearest 3 m, unless they are also the nearest to 1 m.
    static func secondPoint(_ receiver: RSSIReceiver) -> CalibrationPoint? {
        let distances = receiver.streams.map(\.distance)
        guard let nearOne = distances.min(by: { abs($0 - 1) < abs($1 - 1) }),
              let nearThree = distances.min(by: { abs($0 - 3) < abs($1 - 3) }), nearThree != nearOne else { return nil }
        let rssi = receiver.streams.filter { $0.distance == nearThree }.flatMap(\.rssi)
        return try? CalibrationPoint(checking: nearThree, rssi: RSSIDatasets.median(rssi))
    }

    /// Receivers of `dataset` that two-point calibration could not fit and scored one-point.
    public func fallbacks(_ dataset: RSSIDataset) -> Int {
        self == .twoPoint ? dataset.receivers.filter { model($0).exponent == nil }.count : 0
    }
}
