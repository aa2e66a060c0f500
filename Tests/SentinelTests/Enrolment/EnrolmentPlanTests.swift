import BikebeaconAPI
import Foundation
import Sentinel
import Testing
import TestSupport

/// `bikebeacon enroll`'s decisions, apart from its I/O.
struct EnrolmentPlanTests {
    @Test func theURLCarriesServerAndCode() throws {
        // The code in the fragment (#43: no browser sends it), as `sentinels add --public-url` prints it now.
        #expect(try EnrolmentTarget.parse("https://bikes.example.org/enrol#K7QP-3MXD-9RTA-WZ4E-HN2B", code: nil)
                == EnrolmentTarget(serverURL: "https://bikes.example.org", code: "K7QP-3MXD-9RTA-WZ4E-HN2B"))
        #expect(try EnrolmentTarget.parse("http://10.0.0.2:8080/bikes/enrol#K7QP-3MXD", code: "k7qp3mxd")
                == EnrolmentTarget(serverURL: "http://10.0.0.2:8080/bikes", code: "K7QP-3MXD"))
        // The path form older servers printed.
        #expect(try EnrolmentTarget.parse("https://bikes.example.org/enrol/K7QP-3MXD-9RTA-WZ4E-HN2B", code: nil)
                == EnrolmentTarget(serverURL: "https://bikes.example.org", code: "K7QP-3MXD-9RTA-WZ4E-HN2B"))
        // Behind a path prefix, with a trailing slash, and the code repeated the same.
        #expect(try EnrolmentTarget.parse("http://10.0.0.2:8080/bikes/enrol/K7QP-3MXD/", code: "k7qp3mxd")
                == EnrolmentTarget(serverURL: "http://10.0.0.2:8080/bikes", code: "K7QP-3MXD"))
        // A bare host means https; the code apart.
        #expect(try EnrolmentTarget.parse("bikes.example.org/", code: " K7QP ") == EnrolmentTarget(serverURL: "https://bikes.example.org", code: "K7QP"))
    }

    @Test func aTargetWithoutServerOrCodeIsRefusedWithWhatToGive() {
        for (argument, code) in [("https://bikes.example.org", nil), ("", "K7QP"), ("ftp://bikes.example.org", "K7QP"),
                                 ("https://bikes.example.org/enrol/AAAA", "BBBB"), ("https://", "K7QP"), ("https://a b", "K7QP"),
                                 ("https://bikes.example.org/enrol#AAAA", "BBBB"), ("https://bikes.example.org/enrol#", nil),
                                 ("https://bikes.example.org/x#y/enrol#AAAA", nil), ("https://bikes.example.org/enrol#AA/BB", nil),
                                 ("https://bikes.example.org/#AAAA", nil)] as [(String, String?)] {
            #expect(throws: EnrolmentError.self, "\(argument) \(code ?? "-")") { try EnrolmentTarget.parse(argument, code: code) }
        }
        #expect(throws: EnrolmentError.badTarget("no enrolment code: give `bikebeacon enroll https://bikes.example.org CODE`, or the URL with /enrol#CODE that `sentinels add --public-url` printed")) {
            try EnrolmentTarget.parse("https://bikes.example.org", code: nil)
        }
    }

    @Test func anExistingConfigIsKeptUnlessReplaced() throws {
        let example = try String(contentsOfFile: Paths.repository.appendingPathComponent("deploy/sentinel.example.yaml").path, encoding: .utf8)
        #expect(EnrolmentPlan.classify(existing: nil) == .absent)
        #expect(EnrolmentPlan.classify(existing: example) == .shippedExample)
        #expect(EnrolmentPlan.classify(existing: "server:\n  token: bbs_abc\n") == .configured)
        try EnrolmentPlan.mayWrite(.absent, replace: false, path: "/etc/bikebeacon/sentinel.yaml")
        try EnrolmentPlan.mayWrite(.shippedExample, replace: false, path: "/etc/bikebeacon/sentinel.yaml")
        try EnrolmentPlan.mayWrite(.configured, replace: true, path: "/etc/bikebeacon/sentinel.yaml")
        #expect(throws: EnrolmentError.configExists(path: "/etc/bikebeacon/sentinel.yaml")) {
            try EnrolmentPlan.mayWrite(.configured, replace: false, path: "/etc/bikebeacon/sentinel.yaml")
        }
    }

    @Test func aSilentRadioStopsEnrolmentUnlessForced() throws {
        #expect(try EnrolmentPlan.radio(reports: 57, failure: nil, force: false) == "radio: 57 Bluetooth LE reports heard in 10 s")
        #expect(throws: EnrolmentError.self) { try EnrolmentPlan.radio(reports: 0, failure: nil, force: false) }
        #expect(throws: EnrolmentError.radioSilent("the radio could not listen: no adapter hci9")) {
            try EnrolmentPlan.radio(reports: nil, failure: "no adapter hci9.", force: false)
        }
        #expect(try EnrolmentPlan.radio(reports: 0, failure: nil, force: true).hasPrefix("warning: the radio heard no Bluetooth LE report in 10 s"))
    }

    @Test func theServersAnswer() throws {
        let enrolment = SentinelEnrolment(token: "bbs_Ab-9_x", name: "Cafe Rosa", serverURL: "https://b.example", roaming: false,
                                          place: SentinelPlace(latitude: 52.37, longitude: 4.89))
        #expect(try EnrolmentPlan.answer(status: 200, body: JSONEncoder().encode(enrolment)) == enrolment)
        #expect(throws: EnrolmentError.refused(status: 410, message: "this enrolment code was used")) {
            try EnrolmentPlan.answer(status: 410, body: Data(#"{"error":"code_used","message":"this enrolment code was used"}"#.utf8))
        }
        #expect(throws: EnrolmentError.refused(status: 502, message: "<html>bad gateway</html>")) {
            try EnrolmentPlan.answer(status: 502, body: Data("<html>bad gateway</html>".utf8))
        }
        #expect(throws: EnrolmentError.self) { try EnrolmentPlan.answer(status: 200, body: Data("{}".utf8)) }
        var hostile = enrolment
        hostile.token = "bbs_x\"\n  url: http://evil"
        #expect(throws: EnrolmentError.self) { try EnrolmentPlan.answer(status: 200, body: JSONEncoder().encode(hostile)) }
    }

    /// The written config is one the sentinel reads back: the server, the token, the scanner, where sightings go.
    @Test func theConfigReadsBack() throws {
        let fixed = SentinelEnrolment(token: "bbs_Ab-9_x", name: "Cafe \"Rosa\"\nsecond line", serverURL: "https://ignored.example",
                                      roaming: false, place: SentinelPlace(latitude: 52.37, longitude: 4.89))
        let text = EnrolmentPlan.configText(fixed, serverURL: "http://10.0.0.2:8080/bikes", backend: .hci, adapter: "hci1")
        let settings = try SentinelConfiguration.parse(yaml: text, environment: [:])
        #expect(settings.serverURL == "http://10.0.0.2:8080/bikes" && settings.token == "bbs_Ab-9_x")
        #expect(settings.backend == .hci && settings.adapter == "hci1" && !settings.location.isRoaming)
        try settings.validate()
        var roaming = fixed
        roaming.roaming = true
        roaming.place = nil
        let moving = try SentinelConfiguration.parse(yaml: EnrolmentPlan.configText(roaming, serverURL: "https://b.example", backend: .dbus, adapter: nil),
                                                     environment: [:])
        #expect(moving.location.isRoaming && moving.backend == .dbus && moving.adapter == nil)
    }
}
