import Beacon
import Foundation
import Owners
import Testing
import TestSupport

/// The local bikes file, directly and through `bikebeacon bikes`.
struct BikesFileTests {
    let red = Bike(name: "red commuter", beacon: BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20596:25984")!)
    let blue = Bike(name: "blue", beacon: BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20596:32020")!)

    @Test func addListRemoveThroughTheCommand() async throws {
        let directory = try temporaryDirectory()
        let file = directory + "/nested/bikes.json"
        let added = try await run("bikebeacon", ["bikes", "add", "red commuter", "--beacon", red.beacon.description.lowercased(), "--file", file])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("added red commuter (494E5445-4C4C-495F-524F-434B535F4857:20596:25984)"))
        #expect(try await run("bikebeacon", ["bikes", "add", "blue", "--beacon", blue.beacon.description, "--file", file]).status == 0)

        let listed = try await run("bikebeacon", ["bikes", "list", "--file", file])
        #expect(listed.status == 0)
        #expect(listed.lines == [
            "NAME          BEACON",
            "red commuter  494E5445-4C4C-495F-524F-434B535F4857:20596:25984",
            "blue          494E5445-4C4C-495F-524F-434B535F4857:20596:32020",
        ])

        let removed = try await run("bikebeacon", ["bikes", "remove", "red commuter", "--file", file])
        #expect(removed.status == 0)
        #expect(try BikesFile.load(path: file) == BikeBook(bikes: [blue]))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory + "/nested")
        #expect(leftovers == ["bikes.json"], "the atomic write leaves no temporary file behind")
    }

    @Test func defaultFileIsInTheXDGConfigDirectory() async throws {
        let directory = try temporaryDirectory()
        let result = try await run("bikebeacon", ["bikes", "add", "blue", "--beacon", blue.beacon.description], environment: ["XDG_CONFIG_HOME": directory])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try BikesFile.load(path: directory + "/bikebeacon/bikes.json").bikes == [blue])
        #expect(ConfigDirectory.bikesFile(environment: ["HOME": "/home/ann"]) == "/home/ann/.config/bikebeacon/bikes.json")
        #expect(ConfigDirectory.bikesFile(environment: ["HOME": "/home/ann", "XDG_CONFIG_HOME": "relative"]) == "/home/ann/.config/bikebeacon/bikes.json")
    }

    @Test func refusesDuplicatesAndUnknownNames() async throws {
        let file = try temporaryDirectory() + "/bikes.json"
        #expect(try await run("bikebeacon", ["bikes", "add", "blue", "--beacon", blue.beacon.description, "--file", file]).status == 0)
        let sameName = try await run("bikebeacon", ["bikes", "add", "blue", "--beacon", red.beacon.description, "--file", file])
        #expect(sameName.status != 0)
        #expect(sameName.stderr.contains("there is already a bike called \"blue\""))
        let sameBeacon = try await run("bikebeacon", ["bikes", "add", "other", "--beacon", blue.beacon.description, "--file", file])
        #expect(sameBeacon.stderr.contains("already belongs to \"blue\""))
        let badBeacon = try await run("bikebeacon", ["bikes", "add", "x", "--beacon", "not-a-beacon", "--file", file])
        #expect(badBeacon.status != 0)
        #expect(badBeacon.stderr.contains("no beacon UUID in it: paste the UUID with its major and minor (UUID/MAJOR/MINOR)"))
        let unknown = try await run("bikebeacon", ["bikes", "remove", "green", "--file", file])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no bike called \"green\": known bikes are \"blue\""))
        #expect(try BikesFile.load(path: file).bikes == [blue])
    }

    @Test(arguments: [
        ("{\"bikes\": [", "not JSON"),
        ("{\"bikes\": [{\"name\": \"a\"}]}", "at .bikes[0]"),
        ("[1, 2]", "the top level"),
        ("{\"bikes\": [{\"name\": \"a\", \"beacon\": {\"uuid\": \"494E5445-4C4C-495F-524F-434B535F4857\", \"major\": 1, \"minor\": 2}}, {\"name\": \"a\", \"beacon\": {\"uuid\": \"494E5445-4C4C-495F-524F-434B535F4857\", \"major\": 1, \"minor\": 3}}]}", "already a bike called"),
        ("\u{FF}\u{00}garbage", "not JSON"),
    ])
    func corruptFileIsAClearErrorNamingTheFile(content: String, detail: String) async throws {
        let file = try temporaryDirectory() + "/bikes.json"
        try Data(content.utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: BikesFileError.self) { try BikesFile.load(path: file) }
        for arguments in [["bikes", "list", "--file", file], ["bikes", "add", "b", "--beacon", blue.beacon.description, "--file", file]] {
            let result = try await run("bikebeacon", arguments)
            #expect(result.status == 1)
            #expect(result.stderr.contains("the bikes file \(file) is not valid ("), "\(result.stderr)")
            #expect(result.stderr.contains(detail), "\(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(content.utf8), "a corrupt file is never overwritten")
    }

    @Test func missingFileIsAnEmptyListAndADirectoryIsUnreadable() async throws {
        let directory = try temporaryDirectory()
        #expect(try BikesFile.load(path: directory + "/none.json") == BikeBook())
        let listed = try await run("bikebeacon", ["bikes", "list", "--file", directory + "/none.json"])
        #expect(listed.status == 0)
        #expect(listed.stderr.contains("no bikes in"))
        #expect(throws: BikesFileError.self) { try BikesFile.load(path: directory) }
    }

    @Test func namesAreTrimmedAndControlCharactersRefused() throws {
        var book = BikeBook()
        try book.add(Bike(name: "  red  ", beacon: red.beacon))
        #expect(book.bikes.map(\.name) == ["red"])
        #expect(throws: BikeBookError.invalidName("evil\u{1B}[2J")) { try book.add(Bike(name: "evil\u{1B}[2J", beacon: blue.beacon)) }
        #expect(throws: BikeBookError.invalidName("   ")) { try book.add(Bike(name: "   ", beacon: blue.beacon)) }
    }
}

/// A fresh empty directory, removed when the test process exits; unique per call.
func temporaryDirectory() throws -> String { try TestDirectory.fresh("bikebeacon-owners").path }
