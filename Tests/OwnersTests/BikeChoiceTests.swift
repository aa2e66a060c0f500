import Beacon
import Owners
import Testing

/// The rule `range` uses to pick the bike: the beacon given, else the bikes file, and the account
/// only when the file does not settle it (so `range` works offline).
struct BikeChoiceTests {
    static let red = Bike(name: "red", beacon: BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20596:25984")!)
    static let green = Bike(name: "green", beacon: BeaconID("426C7565-4368-6172-6D42-6561636F6E73:3838:4949")!)

    func bikesFile(_ bikes: [Bike]) throws -> String {
        let path = try temporaryDirectory() + "/bikes.json"
        try BikesFile.save(BikeBook(bikes: bikes), path: path)
        return path
    }

    @Test func theLocalFileSettlesItWithoutAskingTheAccount() async throws {
        let file = try bikesFile([Self.red])
        let only = try await BikeChoice.resolve(bike: nil, beacon: nil, bikesFile: file, environment: [:]) {
            Issue.record("the account was asked though the file had the only bike")
            return nil
        }
        #expect(only.name == "red" && only.beacon == Self.red.beacon)
        let named = try await BikeChoice.resolve(bike: "red", beacon: nil, bikesFile: file, environment: [:]) {
            Issue.record("the account was asked though the file had the bike")
            return nil
        }
        #expect(named.beacon == Self.red.beacon)
    }

    @Test func aBeaconGivenOutrightWins() async throws {
        let chosen = try await BikeChoice.resolve(bike: nil, beacon: Self.green.beacon.description, bikesFile: "/nonexistent/bikes.json", environment: [:]) { nil }
        #expect(chosen.name == nil && chosen.beacon == Self.green.beacon)
        #expect(throws: BikeChoice.Failure.self) { try BikeChoice.beacon("not-a-beacon") }
        // Pasted as the tag's app shows it: raw manufacturer data, or a labelled line.
        #expect(try BikeChoice.beacon("4c000215426c7565436861726d426561636f6e730efe1355c5") == Self.green.beacon)
        #expect(try BikeChoice.beacon("UUID: 426c7565-4368-6172-6d42-6561636f6e73 Major: 3838 Minor: 4949") == Self.green.beacon)
    }

    @Test func theAccountIsAskedForAnUnknownNameOrAnEmptyFile() async throws {
        let file = try bikesFile([Self.red])
        let named = try await BikeChoice.resolve(bike: "green", beacon: nil, bikesFile: file, environment: [:]) { [Self.green] }
        #expect(named.name == "green" && named.beacon == Self.green.beacon)
        let empty = try bikesFile([])
        let only = try await BikeChoice.resolve(bike: nil, beacon: nil, bikesFile: empty, environment: [:]) { [Self.green] }
        #expect(only.name == "green")
    }

    @Test func ambiguityAndAbsenceAreExplained() async throws {
        let two = try bikesFile([Self.red, Self.green])
        let which = await #expect(throws: BikeChoice.Failure.self) {
            try await BikeChoice.resolve(bike: nil, beacon: nil, bikesFile: two, environment: [:]) { nil }
        }
        #expect(which?.description == "which bike? pass --bike NAME, one of: red, green")
        let none = await #expect(throws: BikeChoice.Failure.self) {
            try await BikeChoice.resolve(bike: nil, beacon: nil, bikesFile: try bikesFile([]), environment: [:]) { nil }
        }
        #expect(none?.description.hasPrefix("no bike chosen") == true)
        let unknown = await #expect(throws: BikeChoice.Failure.self) {
            try await BikeChoice.resolve(bike: "blue", beacon: nil, bikesFile: two, environment: [:]) { [] }
        }
        #expect(unknown?.description.contains("no bike called \"blue\"") == true)
        #expect(throws: BikeChoice.Failure.self) { try BikeChoice.bikesFile(nil, environment: [:]) }
        #expect(try BikeChoice.bikesFile(nil, environment: ["XDG_CONFIG_HOME": "/cfg"]) == "/cfg/bikebeacon/bikes.json")
    }
}
