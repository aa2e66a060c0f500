import Beacon
import BikebeaconAPI
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import Server

/// The 24 h hold on new tags (#35): a tag put on a bike less than a day ago goes on the missing list only
/// with a police report's reference, which the operator reads back. The hold runs from when the tag was
/// put on that bike: deleting and registering it again, or moving it to another bike, starts it again;
/// editing the bike otherwise does not.
enum NewTagHoldScenarios {
    static let hour = NewTagHold.hour

    /// A server with the production hold (the harness's default turns it off) on a clock the scenario moves.
    static func held(_ backend: Backend) async throws -> (PushScenarios.Clock, Harness) {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.now = clock.read
            $0.newTagHold = NewTagHold()
        })
        return (clock, harness)
    }

    static func refusedWithoutReference(_ backend: Backend) async throws {
        let (clock, harness) = try await held(backend)
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            let registered = clock.read()
            let missing = "/v1/bikes/\(bike.id)/missing"
            func mark(_ body: MissingRequest? = nil, raw: String? = nil) async throws -> TestResponse {
                try await client.send(.post, missing, token: ann, json: body, raw: raw)
            }
            func isMissing() async throws -> Bool {
                try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: ann)).missing
            }

            // Fresh tag: no body, an empty object, a blank reference are all refused, saying what to do.
            let refused = try await mark()
            expectError(refused, .conflict, "police_reference_required")
            let message = try client.decode(ErrorBody.self, refused).message
            #expect(message.contains("'policeReference'") && message.contains(Timestamp.format(milliseconds: registered + 24 * hour)), "\(message)")
            expectError(try await mark(raw: "{}"), .conflict, "police_reference_required")
            expectError(try await mark(MissingRequest(policeReference: "   ")), .conflict, "police_reference_required")
            #expect(try await !isMissing())
            // Bad references are a 400 naming the field.
            expectError(try await mark(MissingRequest(policeReference: "PR 1\nsecond line")), .badRequest, "invalid_request")
            expectError(try await mark(MissingRequest(policeReference: String(repeating: "7", count: 101))), .badRequest, "invalid_request")
            expectError(try await mark(raw: #"{"policeReference": 5}"#), .badRequest)
            #expect(try await !isMissing())

            // With a reference: on the list at once, and the reference is on record for the operator.
            clock.advance(hour)
            let marked = try await mark(MissingRequest(policeReference: "  PR-2026-1234 "))
            #expect(marked.status == .ok, "\(String(buffer: marked.body))")
            #expect(try client.decode(Bike.self, marked).missing)
            // Renewing a missing bike is not held: the tag is already on the list.
            clock.advance(1)
            #expect(try await mark().status == .ok)
            let record = try #require(try await ReadLogExport.load(database: harness.database, subject: "ann@example.org"))
            #expect(record.reports.map(\.policeReference) == ["PR-2026-1234", nil])
            #expect(record.reports.first?.tagSince == registered && record.reports.first?.tag == bike.beacon.description)
            #expect(record.text.contains("police reference \"PR-2026-1234\""), "\(record.text)")

            // Recovered, then a day after the tag was put on: no reference needed; a millisecond before, still held.
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/recovered", token: ann).status == .ok)
            clock.advance(23 * hour - 2)
            expectError(try await mark(), .conflict, "police_reference_required")
            // Editing the bike (its beacon sent unchanged, too) does not start the hold again.
            let edited = try await client.send(.patch, "/v1/bikes/\(bike.id)", token: ann,
                                               json: BikeFields(name: "Renamed", beacon: bike.beacon))
            #expect(edited.status == .ok)
            clock.advance(1)
            #expect(try await mark().status == .ok)
            #expect(try await isMissing())
        }
    }

    /// Re-registering a tag, moving it to another bike or onto an old bike starts the hold again.
    static func reRegisteringStartsAgain(_ backend: Backend) async throws {
        let (clock, harness) = try await held(backend)
        try await harness.run { client in
            let eve = try await client.owner("eve@example.org")
            let old = try await client.bike(eve, name: "Old", beacon: Fixture.beaconA)
            let spare = try await client.bike(eve, name: "Spare", beacon: Fixture.beaconB)
            clock.advance(48 * hour)
            func mark(_ id: String) async throws -> TestResponse { try await client.send(.post, "/v1/bikes/\(id)/missing", token: eve) }

            // The account and both bikes are two days old. Delete a bike and register its tag again: held.
            #expect(try await client.send(.delete, "/v1/bikes/\(spare.id)", token: eve).status == .noContent)
            let again = try await client.bike(eve, name: "Again", beacon: Fixture.beaconB)
            expectError(try await mark(again.id), .conflict, "police_reference_required")

            // Swap a new tag onto the old bike: held from the swap, though the bike is two days old.
            let tagC = BeaconID(uuid: try #require(UUID(uuidString: Fixture.beaconC)), major: 7, minor: 7)
            #expect(try await client.send(.patch, "/v1/bikes/\(old.id)", token: eve, json: BikeFields(beacon: tagC)).status == .ok)
            expectError(try await mark(old.id), .conflict, "police_reference_required")

            // Move the tag between bikes: the old bike's tag C goes to the new bike, which is held from the move.
            let tagD = BeaconID(uuid: tagC.uuid, major: 7, minor: 8)
            clock.advance(25 * hour)
            #expect(try await client.send(.patch, "/v1/bikes/\(old.id)", token: eve, json: BikeFields(beacon: tagD)).status == .ok)
            #expect(try await client.send(.patch, "/v1/bikes/\(again.id)", token: eve, json: BikeFields(beacon: tagC)).status == .ok)
            expectError(try await mark(again.id), .conflict, "police_reference_required")

            // A missing bike cannot take a new tag (it would be followed at once, with no hold).
            #expect(try await client.send(.post, "/v1/bikes/\(again.id)/missing", token: eve,
                                          json: MissingRequest(policeReference: "PR-9")).status == .ok)
            expectError(try await client.send(.patch, "/v1/bikes/\(again.id)", token: eve, json: BikeFields(beacon: tagD)),
                        .conflict, "missing_bike_tag_change")
            let list = try await MissingListStore(database: harness.database, retention: 100).full()
            #expect(list.bikes.map(\.beacon) == [tagC], "only the tag marked with a reference is followed")
        }
    }

    /// A new tag and a missing report sent at once: one of them is refused, never both taken (which would
    /// follow the new tag with no hold). On PostgreSQL the two transactions run side by side.
    static func newTagAndReportAtOnce(_ backend: Backend) async throws {
        let (clock, harness) = try await held(backend)
        try await harness.run { client in
            let eve = try await client.owner("eve@example.org")
            var bikes: [Bike] = []
            for minor in 1...12 { bikes.append(try await client.bike(eve, name: "Bike \(minor)", beacon: Fixture.beaconA, minor: minor)) }
            clock.advance(25 * hour)
            let outcomes = try await withThrowingTaskGroup(of: (HTTPResponse.Status, HTTPResponse.Status).self) { group in
                for bike in bikes {
                    group.addTask {
                        let fresh = BeaconID(uuid: bike.beacon.uuid, major: 2, minor: bike.beacon.minor)
                        async let patched = client.send(.patch, "/v1/bikes/\(bike.id)", token: eve, json: BikeFields(beacon: fresh))
                        async let marked = client.send(.post, "/v1/bikes/\(bike.id)/missing", token: eve)
                        return (try await patched.status, try await marked.status)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { $0 == (.ok, .conflict) || $0 == (.conflict, .ok) }, "\(outcomes)")
            let followed = try await MissingListStore(database: harness.database, retention: 100).full().bikes.map(\.beacon)
            #expect(followed.allSatisfy { $0.major == 1 }, "only old tags are followed: \(followed)")
        }
    }
}
