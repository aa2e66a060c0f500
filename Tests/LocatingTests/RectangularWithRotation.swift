import Benchmarks
import Foundation
import Locating
import TestSupport

/// philotuxo's track rectangular_with_rotation, every sensor (Tests/Fixtures/philotuxo): a walk
/// round the room, 84 s, long enough for what the locator learns over its fixes to show.
enum RectangularWithRotation {
    static let data: PhilotuxoPositions = {
        let url = Paths.fixture("philotuxo/rectangular_with_rotation-all-sensors.csv")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return (try? PhilotuxoPositions.parse(text)) ?? PhilotuxoPositions(sensors: [], tracks: [])
    }()

    static var rows: [PhilotuxoPositions.Row] { data.tracks.first?.rows ?? [] }

    /// The receivers at their places, with no calibration.
    static func receivers() -> [Receiver] {
        data.sensors.map { Receiver(id: $0.id, position: PlanePoint(x: $0.x, y: $0.y)) }
    }

    /// Each fix with the truth at the reading that made it.
    static func fixes(_ receivers: [Receiver], configuration: LocatorConfiguration = .init()) throws -> [(fix: Fix, truth: PlanePoint)] {
        var locator = try Locator(receivers: receivers, configuration: configuration)
        return try rows.compactMap { row in try locator.add(row.reading).map { ($0, row.truth) } }
    }
}
