import BikebeaconAPI
import Foundation
import HummingbirdTesting
import Testing
@testable import Server

/// The enrolment QR code keeps the live code out of every log (#43): it leads to `/enrol#CODE`, whose fragment no
/// browser sends; the old `/enrol/CODE` answers the same fixed page, which neither echoes nor uses the code.
enum EnrolmentPageScenarios {
    static func codeStaysOutOfTheURL(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, token) = try await harness.sentinel("Cafe Rosa", latitude: 52.37, longitude: 4.89)
        let issued = try await EnrolmentStore(database: harness.database).issue(sentinel: "Cafe Rosa", token: token, now: harness.options.now())
        let url = EnrolmentNotice.url(publicURL: "https://bikes.example.org/", code: issued.code)
        #expect(url == "https://bikes.example.org/enrol#\(issued.code)")
        // What a browser asks for: the URL up to the fragment.
        #expect(URL(string: url)?.path == "/enrol" && URL(string: url)?.fragment == issued.code)
        try await harness.run { client in
            let page = try await client.send(.get, "/enrol")
            #expect(page.status == .ok && page.headers[.contentType]?.hasPrefix("text/html") == true && page.headers[.cacheControl] == "no-store")
            let html = String(buffer: page.body)
            #expect(html.contains("/dashboard/enrol.js") && html.contains("sudo bikebeacon enroll"))
            #expect(try await client.send(.get, "/dashboard/enrol.js").status == .ok)

            // The old path: the same fixed page, no echo of the code.
            let old = try await client.send(.get, "/enrol/\(issued.code)")
            #expect(old.status == .ok && old.headers[.cacheControl] == "no-store")
            #expect(String(buffer: old.body) == html && !html.contains(issued.code))
            // Neither used the code: the sentinel still enrols with it, once.
            #expect(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: issued.code)).status == .ok)
            expectError(try await client.send(.post, "/v1/sentinel/enrol", json: EnrolmentRequest(code: issued.code)), .gone, "code_used")
        }
    }
}
