import BikebeaconAPI
import Testing
@testable import Server

/// The ~500 m grid a home sentinel's position is shown on, and who sees what.
@Suite struct SightingPrivacyTests {
    /// Deterministic: nearby places share one point, so many sightings average to nothing finer.
    @Test func nearbyPlacesShareOnePointOfTheGrid() {
        let a = SightingPrivacy.snapped(latitude: 52.123456, longitude: 4.654321)
        let b = SightingPrivacy.snapped(latitude: 52.1239, longitude: 4.6530)
        #expect(a == b)
        #expect(a.latitude == 52.125)
        #expect(SightingPrivacy.snapped(latitude: -33.8688, longitude: 151.2093).latitude == -33.87)
        // Near the antimeridian the longitude stays within range.
        #expect(abs(SightingPrivacy.snapped(latitude: 0.001, longitude: 179.9999).longitude) <= 180)
    }

    @Test func onlyTheSentinelsOwnerSeesItsPlace() {
        #expect(!SightingPrivacy.Audience.owner.hides(.none) && !SightingPrivacy.Audience.owner.hides(.owners))
        #expect(SightingPrivacy.Audience.owner.hides(.others))
        #expect(!SightingPrivacy.Audience.anyone.hides(.none))
        #expect(SightingPrivacy.Audience.anyone.hides(.owners) && SightingPrivacy.Audience.anyone.hides(.others))
        #expect(SightingPrivacy.Home(sentinelOwner: nil, bikeOwner: "a") == .none)
        #expect(SightingPrivacy.Home(sentinelOwner: "a", bikeOwner: "a") == .owners)
        #expect(SightingPrivacy.Home(sentinelOwner: "b", bikeOwner: "a") == .others)
        // A home sentinel whose owner deleted their account stays private to everyone.
        let orphan = Sentinel(id: "s", name: "Bob's garage", latitude: 52.1, longitude: 4.6, createdMilliseconds: 0, ownerID: nil, home: true)
        #expect(SightingPrivacy.Home(orphan, bikeOwner: "a") == .others)
        let cafe = Sentinel(id: "c", name: "Cafe", latitude: 52.1, longitude: 4.6, createdMilliseconds: 0)
        #expect(SightingPrivacy.Home(cafe, bikeOwner: "a") == .none)
    }
}
