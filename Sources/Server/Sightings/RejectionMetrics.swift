import BikebeaconAPI
import Prometheus

/// Refused sightings per sentinel and field, so an operator sees which sentinel sends bad times or
/// positions (a wrong clock, a GPS week rollover, a forged token) without reading logs. The labels are
/// bounded: sentinels are enrolled by the operator, fields are the sighting's own.
extension ServerMetrics {
    static var rejections: MetricNameDescriptor {
        MetricNameDescriptor(metricName: "bikebeacon_sightings_rejected", unitName: "total",
                             helpText: "Sightings the server refused, by sentinel and by the field refused.")
    }

    func countRejections(_ rejections: [Rejection], sentinel: String) {
        for rejection in rejections {
            let field = rejection.field.flatMap { Self.rejectionFields.contains($0) ? $0 : nil } ?? "other"
            registry.makeCounter(descriptor: Self.rejections, labels: [("sentinel", sentinel), ("field", field)]).increment()
        }
    }

    /// A decoding error may name any key the sender chose; only the sighting's own fields become labels.
    static let rejectionFields: Set<String> = [
        "id", "uuid", "major", "minor", "event", "time", "firstSeen", "lastSeen", "rssi", "distance", "zone",
        "latitude", "longitude", "accuracy", "fixTime", "fix",
    ]
}
