import Locating
import Testing

/// What a fix's places span decides whether it may teach the locator anything (`PlaceSpan`).
struct PlaceSpanTests {
    func span(_ places: [(Double, Double)]) -> PlaceSpan {
        PlaceSpan(places.map { PlanePoint(x: $0.0, y: $0.1) }, within: 0.5)
    }

    @Test func placesWithinHalfAMetreAreOne() {
        #expect(span([(3, 4)]) == .point)
        #expect(span([(3, 4), (3.3, 4), (3, 4.2), (3, 4)]) == .point)
        #expect(span([(3, 4), (3.6, 4)]) == .line)
    }

    @Test func aPlaceHalfAMetreOffTheLineMakesAPlane() {
        #expect(span([(0, 0), (5, 0.3), (10, 0), (20, 0.3)]) == .line)
        #expect(span([(0, 0), (5, 0), (10, 0), (5, 1.2)]) == .plane)
        // Down any direction alike: the line is the places' own axis, not the first two's.
        #expect(span([(0, 0), (0.2, 3), (-0.2, 6), (0.1, 9)]) == .line)
        #expect(span([(0, 0), (7, 7.2), (14, 14)]) == .line)
        #expect(span([(0, 0), (10, 0), (10, 10)]) == .plane)
    }

    /// philotuxo's room: each column of four receivers (x 7.0–7.25 m, 12.76–13.14 m) is a line; a receiver beside one makes a plane.
    @Test func philotuxosColumnsAreLines() {
        let receivers = Straight04.receivers()
        for ids in [["sensor10", "sensor11", "sensor20", "sensor22"], ["sensor30", "sensor31", "sensor40", "sensor42"]] {
            let column = receivers.filter { ids.contains($0.id) }.compactMap(\.position)
            #expect(column.count == 4)
            #expect(PlaceSpan(column, within: 0.5) == .line)
            #expect(PlaceSpan(column + [PlanePoint(x: 10, y: 9)], within: 0.5) == .plane)
        }
        #expect(PlaceSpan(receivers.compactMap(\.position), within: 0.5) == .plane)
    }
}
