import Testing
@testable import Sentinel

/// `location:` in the sentinel's config: fixed by default, gpsd for a roaming sentinel, and a
/// mistake named with its line like every other key.
@Suite struct LocationConfigurationTests {
    static let server = "server: {url: \"http://a:1\", token: t}\n"

    static func problem(_ yaml: String) -> String {
        do {
            try SentinelConfiguration.parse(yaml: server + yaml, environment: [:]).validate()
            return "valid"
        } catch {
            return "\(error)"
        }
    }

    @Test func withoutLocationTheSentinelIsFixed() throws {
        let c = try SentinelConfiguration.parse(yaml: Self.server, environment: [:])
        #expect(c.location == LocationSettings(source: .fixed, maxFixAge: 10, passInterval: 300))
        #expect(!c.location.isRoaming)
        #expect(try SentinelConfiguration.parse(yaml: Self.server + "location: fixed\n", environment: [:]).location == c.location)
    }

    @Test func gpsdTakesItsDefaultsAndTheIntervals() throws {
        let c = try SentinelConfiguration.parse(yaml: Self.server + "location:\n  gpsd: {}\n", environment: [:])
        #expect(c.location.source == .gpsd(host: "127.0.0.1", port: 2947) && c.location.isRoaming)
        let d = try SentinelConfiguration.parse(yaml: Self.server + """
            location:
              gpsd: {host: gps.local, port: 2948}
              maxFixAge: 5
              passInterval: 120
            """, environment: [:])
        #expect(d.location == LocationSettings(source: .gpsd(host: "gps.local", port: 2948), maxFixAge: 5, passInterval: 120))
        try d.validate()
    }

    @Test func aMisspeltKeyNamesItsLine() {
        let text = Self.problem("location:\n  gpsd: {host: 127.0.0.1}\n  maxFixAg: 5\n")
        #expect(text.contains("line 4") && text.contains("'location.maxFixAg'") && text.contains("did you mean 'maxFixAge'"), "\(text)")
        let nested = Self.problem("location:\n  gpsd:\n    prot: 2947\n")
        #expect(nested.contains("line 4") && nested.contains("'location.gpsd.prot'") && nested.contains("did you mean 'port'"), "\(nested)")
    }

    @Test func anUnknownWordListsTheChoices() {
        let text = Self.problem("location: moving\n")
        #expect(text.contains("line 2") && text.contains("'location'") && text.contains("expected one of fixed, or a mapping with gpsd"), "\(text)")
    }

    @Test func aWrongTypeNamesItsLine() {
        let text = Self.problem("location:\n  gpsd: {port: twenty}\n")
        #expect(text.contains("line 3") && text.contains("'location.gpsd.port'") && text.contains("expected a number"), "\(text)")
    }

    @Test(arguments: [
        ("location:\n  gpsd: {port: 70000}\n", "location.gpsd.port must be 1…65535"),
        ("location:\n  gpsd: {host: \"\"}\n", "location.gpsd.host must name"),
        ("location:\n  maxFixAge: 0\n", "location.maxFixAge must be 0.5…3600"),
        ("location:\n  passInterval: 0.5\n", "location.passInterval must be at least 1"),
    ])
    func outOfRangeValuesAreRefused(yaml: String, message: String) {
        let text = Self.problem(yaml)
        #expect(text.contains(message), "\(text)")
    }
}
