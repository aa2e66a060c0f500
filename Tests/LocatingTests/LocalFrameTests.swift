import Locating
import Testing

struct LocalFrameTests {
    /// Copenhagen's city hall square, and a place 1 km east and 500 m north of it.
    let frame = LocalFrame(latitude: 55.6761, longitude: 12.5683)

    @Test func roundTripsAPlace() {
        let point = frame.point(latitude: 55.6806, longitude: 12.5842)
        let back = frame.coordinates(of: point)
        #expect(abs(back.latitude - 55.6806) < 1e-9 && abs(back.longitude - 12.5842) < 1e-9)
    }

    /// A degree of latitude is 111.2 km; a degree of longitude at 55.68° N is 62.7 km.
    @Test func metresMatchTheGlobe() {
        let north = frame.point(latitude: 55.6761 + 0.01, longitude: 12.5683)
        let east = frame.point(latitude: 55.6761, longitude: 12.5683 + 0.01)
        #expect(abs(north.y - 1112.0) < 1 && abs(north.x) < 1e-9)
        #expect(abs(east.x - 627.4) < 1 && abs(east.y) < 1e-9)
    }

    @Test func crossesTheAntimeridian() {
        let fiji = LocalFrame(latitude: -17.7, longitude: 179.999)
        let point = fiji.point(latitude: -17.7, longitude: -179.999)
        #expect(point.x > 0 && point.x < 300, "0.002° east across 180°, got \(point.x) m")
        #expect(abs(fiji.coordinates(of: point).longitude - -179.999) < 1e-9)
    }
}
