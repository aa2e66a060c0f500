import GPSD
import Logging

/// A roaming sentinel's location edge: the gpsd client (none when a recorded track plays) and the fix it keeps.
struct Roaming: Sendable {
    let client: GPSDClient?
    let location: RoamingLocation

    init?(_ settings: LocationSettings, clock: LiveClock, logger: Logger) {
        switch settings.source {
        case .fixed:
            return nil
        case let .gpsd(host, port):
            client = GPSDClient(configuration: GPSDClientConfiguration(host: host, port: port), logger: logger.labelled("bikebeacon.gpsd"))
            location = RoamingLocation(maxFixAge: settings.maxFixAge, clock: clock)
        case let .recorded(track):
            client = nil
            location = RoamingLocation(maxFixAge: settings.maxFixAge, clock: clock, track: track)
        }
    }

    /// Sightings placed where the sentinel is now: the fix gpsd gave within maxFixAge, or none (never
    /// waited for). On the move a bike is passing, not arriving or leaving: the region's sightings
    /// count only while parked; passing ones carry their own place.
    func placed(_ sightings: [Sighting]) async -> [Sighting] {
        let place = await location.place()
        let parked = await location.isParked()
        return sightings.compactMap { sighting in
            guard sighting.event != .passing else { return sighting }
            guard parked else { return nil }
            var placed = sighting
            placed.place = place
            return placed
        }
    }
}
