import Foundation

extension StoredEvent {
    /// The bike whose place a `sighting` event carries, for the read log (`EventStream`); nil for any other event.
    var sightingBikeID: String? {
        guard kind == "sighting" else { return nil }
        return (try? JSONDecoder().decode(BikeReference.self, from: Data(payload.utf8)))?.bikeId
    }

    private struct BikeReference: Decodable {
        var bikeId: String
    }
}
