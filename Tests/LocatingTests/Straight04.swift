import Benchmarks
import Foundation
import Locating
import TestSupport

/// philotuxo track straight_04 (Tests/Fixtures/philotuxo): 12 fixed receivers, one beacon walked
/// across the room for 24 s, its true place on every row.
enum Straight04 {
    static let data: PhilotuxoPositions = {
        let url = Paths.fixture("philotuxo/straight_04-all-sensors.csv")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return (try? PhilotuxoPositions.parse(text)) ?? PhilotuxoPositions(sensors: [], tracks: [])
    }()

    static var rows: [PhilotuxoPositions.Row] { data.tracks.first?.rows ?? [] }

    /// The receivers at their places, with no calibration: the default model, as a fresh site has.
    static func receivers(calibration: ReceiverCalibration = .none) -> [Receiver] {
        data.sensors.map { Receiver(id: $0.id, position: PlanePoint(x: $0.x, y: $0.y), calibration: calibration) }
    }

    /// Each fix with the truth at the reading that made it.
    static func fixes(_ receivers: [Receiver], configuration: LocatorConfiguration = .init()) throws -> [(fix: Fix, truth: PlanePoint)] {
        var locator = try Locator(receivers: receivers, configuration: configuration)
        return try rows.compactMap { row in try locator.add(row.reading).map { ($0, row.truth) } }
    }
}
