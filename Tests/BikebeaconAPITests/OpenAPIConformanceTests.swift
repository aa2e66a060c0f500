import Beacon
import BikebeaconAPI
import Foundation
import Registry
import Testing
import TestSupport
import Yams

/// The spec (`Sources/Server/Resources/openapi.yaml`) and the wire types cannot drift apart:
/// every schema has a sample of its Swift type here, and each sample must encode to JSON that
/// the schema accepts (names, types, required fields, enums, formats, bounds), with every
/// optional field set it must show every property the spec declares, and the JSON cut down to
/// the spec's required fields must still decode. A new schema without a type fails too.
@Suite struct OpenAPIConformanceTests {
    static let specPath = Paths.repository.appendingPathComponent("Sources/Server/Resources/openapi.yaml").path

    struct Sample: Sendable, CustomTestStringConvertible {
        var schema: String
        /// Every optional field set.
        var full: Data
        /// Every optional field left out (nil), when the type has any.
        var minimal: Data?
        var decode: @Sendable (Data) throws -> Void

        var testDescription: String { schema }

        init<T: Codable & Sendable>(_ schema: String, _ full: T, minimal: T? = nil) {
            self.schema = schema
            let encoder = APIJSON.encoder()
            self.full = (try? encoder.encode(full)) ?? Data()
            self.minimal = minimal.flatMap { try? encoder.encode($0) }
            decode = { _ = try JSONDecoder().decode(T.self, from: $0) }
        }
    }

    static let beacon = BeaconID(uuid: UUID(uuidString: "B5B182C7-EAB1-4988-AA99-B5C1517008D9")!, major: 1, minor: 25626)
    static let description = BikeDescription(make: "Gazelle", model: "Ultimate C8", colour: "green")
    static let item = SightingItem(id: "6f9619ff-8b86-d011-b42d-00c04fc964ff", uuid: beacon.uuid.uuidString, major: 1, minor: 25626,
                                   event: "arrived", time: "2026-11-21T10:00:00.000Z", firstSeen: "2026-11-21T09:59:30.000Z",
                                   lastSeen: "2026-11-21T10:00:00.000Z", rssi: -67, distance: 2.5, zone: "near",
                                   latitude: 52.0912, longitude: 5.1231, accuracy: 8, fixTime: "2026-11-21T09:59:59.500Z", fix: "gps")
    static let bike = Bike(id: "b1", name: "Commuter", make: "Brompton", model: "C Line", colour: "racing green", frameNumber: "BR123",
                           engineNumber: "", notes: "bell on the left", beacon: beacon, missing: true,
                           missingSince: "2026-11-21T09:00:00.000Z", createdAt: "2026-11-20T09:00:00.000Z", updatedAt: "2026-11-21T09:00:00.000Z",
                           missingUntil: "2026-12-21T09:00:00.000Z", underReview: true)
    static let record = SightingRecord(id: "s1", clientId: item.id, bikeId: "b1", beacon: beacon, event: "departed",
                                       time: "2026-11-21T10:05:00.000Z", firstSeen: "2026-11-21T09:59:30.000Z",
                                       lastSeen: "2026-11-21T10:04:00.000Z", rssi: -80, distance: 7.25, zone: "far",
                                       latitude: 52.0912, longitude: 5.1231, accuracy: 8, fixTime: "2026-11-21T10:04:59.000Z", fix: "gps",
                                       sentinel: "Bus line 12", receivedAt: "2026-11-21T10:05:01.000Z", heldForReview: true)
    static let estimate = PositionEstimate(latitude: 52.0907, longitude: 5.1215, radius50: 18.5, radius90: 34.2, sources: 3,
                                           at: "2026-11-21T10:05:00.000Z",
                                           words: "within 35 m of Cafe Rosa, 9 times in 10, from 3 sentinels, on the move at about 18 km/h", speed: 5)
    static let event = NotificationEvent(type: "sighting", sightingId: "s1", bikeId: "b1", bikeName: "Commuter", event: "arrived",
                                         time: "2026-11-21T10:00:00.000Z", beacon: beacon, zone: "near", rssi: -67, distance: 2.5,
                                         sentinel: "Bus line 12", latitude: 52.0912, longitude: 5.1231, accuracy: 8, estimate: estimate)
    static let networkSentinel = NetworkSentinel(
        id: "s1", name: "Cafe Rosa", latitude: 52.09, longitude: 5.12, home: false, onCoverageMap: true, state: "degraded", reason: "not scanning",
        since: "2026-11-21T09:00:00.000Z", lastHeartbeatAt: "2026-11-21T10:00:00.000Z", version: "0.1.0", outdated: true,
        reportsPerMinute: 1840, outboxDepth: 2, outboxOldestAgeSeconds: 31, clockOffsetSeconds: -0.6)
    static let heartbeat = SentinelHeartbeat(
        version: "0.1.0", uptimeSeconds: 86_400.5, backend: "dbus", adapterPresent: true, adapterPowered: true, scanning: true,
        intervalSeconds: 60.2, reports: 1843, iBeacons: 12, lastReportAgeSeconds: 0.4, missingInRange: 1, outboxDepth: 2,
        outboxOldestAgeSeconds: 31, lastDeliveryAt: "2026-11-21T09:59:00.000Z", clockOffsetSeconds: -0.6,
        diskFreeBytes: 12_000_000_000, diskTotalBytes: 31_000_000_000, lastError: "cannot deliver sightings; they stay queued: timeout",
        lastErrorAt: "2026-11-21T09:58:00.000Z", pathLoss: SentinelPathLoss(calibration: .twoPoint, exponent: 2.2, nearFieldExponent: 2))
    static let subscription = PushSubscription(id: "p1", endpoint: "https://fcm.googleapis.com/fcm/send/abc",
                                               createdAt: "2026-11-21T09:00:00.000Z")
    static let notification = OwnerNotification(event: .arrived, bikeId: "b1", bikeName: "Commuter", ownerId: "a1",
                                                place: "Cafe Rosa", latitude: 52.0907, longitude: 5.1214,
                                                time: "2026-11-21T10:00:00.000Z", zone: "near", count: 2,
                                                dateName: "Insurance renewal", due: "2026-12-01", reason: "not scanning",
                                                message: "Found at the station, rack 4", contact: "0612345678")
    static let missing = MissingBeacon(MissingBike(beacon: beacon, description: description))
    static let date = BikeDate(id: "d1", bikeId: "b1", name: "Insurance renewal", due: "2026-12-01", remindDaysBefore: 14,
                               timeZone: "Europe/Amsterdam", remindAt: "2026-11-17T08:00:00.000Z", reminder: "sent",
                               remindedAt: "2026-11-17T08:00:00.000Z")

    static let share = Share(id: "sh1", bikeId: "b1", label: "Police case 1234", includeNotes: true, createdAt: "2026-11-21T09:00:00.000Z",
                             expiresAt: "2026-11-24T09:00:00.000Z", revokedAt: "2026-11-22T09:00:00.000Z", status: "revoked", views: 3,
                             lastViewedAt: "2026-11-21T12:00:00.000Z", url: "https://bikes.example.org/s/bbl_x", token: "bbl_x")
    static let gap = CoverageGap(from: "2026-11-21T21:05:00.000Z", until: "2026-11-21T23:40:00.000Z", state: "silent")
    static let coverageSentinel = CoverageSentinel(name: "Cafe Rosa", distanceMetres: 120, state: "listening", notListening: [gap])
    static let coveragePlace = CoveragePlace(latitude: 52.0907, longitude: 5.1214, accuracy: 500, time: "2026-11-21T10:00:00.000Z",
                                             sentinel: "a private sentinel")
    static let coverage = BikeCoverage(place: coveragePlace, radiusMetres: 1000, missingSince: "2026-11-21T09:00:00.000Z", listening: 1,
                                       sentinels: [coverageSentinel])

    /// The body of `POST /v1/beacons/parse` (the server's own type is internal to it).
    struct BeaconPasteSample: Codable, Sendable { var text: String }

    static let session = Session(id: "s1", kind: "cookie", createdAt: "2026-11-21T09:00:00.000Z", lastUsedAt: "2026-11-21T10:00:00.000Z",
                                 expiresAt: "2026-11-28T10:00:00.000Z", userAgent: "Mozilla/5.0 (X11; Linux x86_64)", current: true)
    static let cliSession = Session(id: "s2", kind: "token", createdAt: "2026-11-20T09:00:00.000Z", lastUsedAt: "2026-11-20T09:00:00.000Z",
                                    expiresAt: nil, userAgent: nil, current: false)

    static let samples: [Sample] = {
        var noDistance = item
        noDistance.distance = nil
        let roamingNoDistance = noDistance
        // A sentinel at a fixed place sends no position fields.
        (noDistance.latitude, noDistance.longitude, noDistance.accuracy, noDistance.fixTime, noDistance.fix) = (nil, nil, nil, nil, nil)
        var notMissing = bike
        (notMissing.missing, notMissing.missingSince) = (false, nil)
        var recordWithoutDistance = record
        recordWithoutDistance.distance = nil
        recordWithoutDistance.heldForReview = nil
        // A roaming sentinel without a fix: no position at all.
        (recordWithoutDistance.latitude, recordWithoutDistance.longitude, recordWithoutDistance.accuracy, recordWithoutDistance.fixTime) = (nil, nil, nil, nil)
        recordWithoutDistance.fix = "none"
        var eventWithoutDistance = event
        eventWithoutDistance.distance = nil
        (eventWithoutDistance.latitude, eventWithoutDistance.longitude, eventWithoutDistance.accuracy) = (nil, nil, nil)
        return [
            Sample("NetworkSentinel", networkSentinel, minimal: NetworkSentinel(
                id: "s2", name: "Bus line 12", latitude: nil, longitude: nil, home: false, state: "silent", reason: "no heartbeat yet",
                since: nil, lastHeartbeatAt: nil, version: nil, outdated: false, reportsPerMinute: nil, outboxDepth: nil,
                outboxOldestAgeSeconds: nil, clockOffsetSeconds: nil)),
            Sample("NetworkSentinelList", NetworkSentinelList(sentinels: [networkSentinel])),
            Sample("NetworkReportList", NetworkReportList(open: 1, held: 0, reports: [
                NetworkReport(reference: "ar_1", status: "open", reportedAt: "2026-11-21T10:00:00.000Z", caseId: "ar_1")])),
            Sample("SentinelHeartbeat", heartbeat, minimal: SentinelHeartbeat(
                version: "0.1.0", uptimeSeconds: 5, backend: "replay", adapterPresent: nil, adapterPowered: nil, scanning: true,
                intervalSeconds: 5, reports: 0, iBeacons: 0, lastReportAgeSeconds: nil, missingInRange: 0, outboxDepth: 0,
                outboxOldestAgeSeconds: nil, lastDeliveryAt: nil, clockOffsetSeconds: nil, diskFreeBytes: nil, diskTotalBytes: nil,
                lastError: nil, lastErrorAt: nil)),
            Sample("SentinelStateEvent", SentinelStateEvent(sentinelId: "s1", sentinel: "Ann's garage", state: "degraded", previous: "listening",
                                                            reason: "not scanning", time: "2026-11-21T10:00:00.000Z"),
                   minimal: SentinelStateEvent(sentinelId: "s1", sentinel: "Ann's garage", state: "listening", previous: nil, reason: "",
                                               time: "2026-11-21T10:00:00.000Z")),
            Sample("Error", ErrorBody(error: "invalid_request", message: "'name' must not be empty")),
            Sample("Credentials", Credentials(email: "ana@example.org", password: "correct horse battery")),
            Sample("Account", Account(id: "a1", email: "ana@example.org", operator: true), minimal: Account(id: "a1", email: "ana@example.org")),
            Sample("Token", Token(token: "bbo_abc")),
            Sample("LogIn", LogIn(email: "ana@example.org", password: "correct horse battery", cookie: true),
                   minimal: LogIn(email: "ana@example.org", password: "correct horse battery")),
            Sample("Session", session, minimal: cliSession),
            Sample("SessionList", SessionList(sessions: [session])),
            Sample("WebhookRequest", WebhookRequest(url: "https://hooks.example.org/bike")),
            Sample("Webhook", Webhook(url: "https://hooks.example.org/bike", secret: "whsec_abc")),
            Sample("Beacon", beacon),
            Sample("Description", description),
            Sample("BikeFields", BikeFields(name: "Commuter", make: "Brompton", model: "C Line", colour: "green", frameNumber: "BR1",
                                            engineNumber: "E1", notes: "bell", beacon: beacon, recoveryContact: "Roadside 0800 123 456"),
                   minimal: BikeFields()),
            Sample("Bike", bike, minimal: notMissing),
            Sample("BikeList", BikeList(bikes: [bike])),
            Sample("MissingBeacon", missing),
            Sample("MissingList", MissingList(version: 7, beacons: [missing])),
            Sample("MissingDelta", MissingDelta(MissingListDelta(since: 5, version: 7, added: [missing.bike], removed: [beacon]))),
            Sample("SightingItem", item, minimal: noDistance),
            Sample("SightingBatch", SightingBatch(sightings: [item, roamingNoDistance])),
            Sample("Rejection", Rejection(id: item.id, reason: "'zone' must be immediate, near, far or unknown", field: "zone")),
            Sample("SightingResult", SightingResult(accepted: 1, duplicates: 0, rejected: [Rejection(id: "x", reason: "'id' must be a UUID", field: "id")])),
            Sample("Sighting", record, minimal: recordWithoutDistance),
            Sample("AccountExport", AccountExport(account: Account(id: "a1", email: "ana@example.org", operator: false), createdAt: "2026-11-20T09:00:00.000Z",
                                                  exportedAt: "2026-11-22T09:00:00.000Z", webhookUrl: "https://hooks.example.org/bike",
                                                  bikes: [bike], sightings: [record], notifications: NotificationSettings(push: true, email: false),
                                                  pushSubscriptions: [subscription], sessions: [session], shares: [share], dates: [date]),
                   minimal: AccountExport(account: Account(id: "a1", email: "ana@example.org"), createdAt: "2026-11-20T09:00:00.000Z",
                                          exportedAt: "2026-11-22T09:00:00.000Z", webhookUrl: nil, bikes: [], sightings: [],
                                          notifications: NotificationSettings(), pushSubscriptions: [], sessions: [])),
            Sample("BeaconPaste", BeaconPasteSample(text: "4c000215b5b182c7eab14988aa99b5c1517008d90001641ac5")),
            Sample("MissingRequest", MissingRequest(policeReference: "PR-2026-1234"), minimal: MissingRequest()),
            Sample("ShareRequest", ShareRequest(expiresIn: 72, label: "Police case 1234", includeNotes: true),
                   minimal: ShareRequest(expiresIn: 72)),
            Sample("Share", share, minimal: Share(id: "sh1", bikeId: "b1", label: "", includeNotes: false, createdAt: "2026-11-21T09:00:00.000Z",
                                                  expiresAt: "2026-11-24T09:00:00.000Z", revokedAt: nil, status: "active", views: 0,
                                                  lastViewedAt: nil)),
            Sample("ShareList", ShareList(shares: [share])),
            Sample("SharedSighting", SharedSighting(record)),
            Sample("SharedBike", SharedBike(name: "Commuter", make: "Brompton", model: "C Line", colour: "green", frameNumber: "BR123",
                                            engineNumber: "E1", notes: "bell", missing: true, missingSince: "2026-11-21T09:00:00.000Z",
                                            expiresAt: "2026-11-24T09:00:00.000Z", sightings: [SharedSighting(record)], coverage: coverage,
                                            estimate: estimate),
                   minimal: SharedBike(name: "Commuter", make: "", model: "", colour: "", frameNumber: "", engineNumber: "", notes: nil,
                                       missing: false, missingSince: nil, expiresAt: "2026-11-24T09:00:00.000Z", sightings: [])),
            Sample("BikeCoverage", coverage,
                   minimal: BikeCoverage(place: nil, radiusMetres: 1000, missingSince: nil, listening: 0, sentinels: [])),
            Sample("CoveragePlace", coveragePlace,
                   minimal: CoveragePlace(latitude: 52.0907, longitude: 5.1214, accuracy: nil, time: "2026-11-21T10:00:00.000Z", sentinel: "Cafe Rosa")),
            Sample("CoverageSentinel", coverageSentinel),
            Sample("CoverageMap", CoverageMap(sentinels: [CoverageMapSentinel(name: "Cafe Rosa", latitude: 52.0907, longitude: 5.1214, listening: false)])),
            Sample("CoverageMapSentinel", CoverageMapSentinel(name: "Cafe Rosa", latitude: 52.0907, longitude: 5.1214, listening: true)),
            Sample("CoverageGap", gap, minimal: CoverageGap(from: "2026-11-21T21:05:00.000Z", until: nil, state: "degraded")),
            Sample("AccountDeletion", AccountDeletion(password: "correct horse battery")),
            Sample("PasswordChange", PasswordChange(currentPassword: "correct horse battery", newPassword: "a better horse battery")),
            Sample("BikeDateRequest", BikeDateRequest(name: "Insurance renewal", due: "2026-12-01", remindDaysBefore: 14, timeZone: "Europe/Amsterdam"),
                   minimal: BikeDateRequest(name: "Service", due: "2027-03-01")),
            Sample("BikeDate", date, minimal: BikeDate(id: "d2", bikeId: "b1", name: "Service", due: "2027-03-01", remindDaysBefore: 7,
                                                       timeZone: "UTC", remindAt: "2027-02-22T09:00:00.000Z", reminder: "scheduled", remindedAt: nil)),
            Sample("BikeDateList", BikeDateList(dates: [date])),
            Sample("HomeSentinel", HomeSentinel(id: "s1", name: "Home", listeningUntil: "2026-11-21T10:02:00.000Z"),
                   minimal: HomeSentinel(id: "s1", name: "Home", listeningUntil: nil)),
            Sample("HomeSentinelList", HomeSentinelList(sentinels: [HomeSentinel(id: "s1", name: "Home", listeningUntil: "2026-11-21T10:02:00.000Z")])),
            Sample("NearbyBeacon", NearbyBeacon(beacon: beacon, rssi: -52, count: 9, heardAt: "2026-11-21T10:00:03.000Z", bike: "Commuter"),
                   minimal: NearbyBeacon(beacon: beacon, rssi: -80, count: 1, heardAt: "2026-11-21T10:00:03.000Z")),
            Sample("NearbyBeacons", NearbyBeacons(listeningUntil: "2026-11-21T10:02:00.000Z",
                                                  beacons: [NearbyBeacon(beacon: beacon, rssi: -52, count: 9, heardAt: "2026-11-21T10:00:03.000Z", bike: "Commuter")]),
                   minimal: NearbyBeacons(listeningUntil: nil, beacons: [])),
            Sample("ListenRequest", ListenRequest(listeningUntil: "2026-11-21T10:02:00.000Z")),
            Sample("NearbyReport", NearbyReport(beacons: [.init(beacon: beacon, rssi: -52, count: 9)])),
            Sample("EnrolmentRequest", EnrolmentRequest(code: "K7QP-3MXD-9RTA-WZ4E-HN2B")),
            Sample("SentinelPlace", SentinelPlace(latitude: 52.37, longitude: 4.89)),
            Sample("SentinelEnrolment", SentinelEnrolment(token: "bbs_x", name: "Cafe Rosa", serverURL: "https://bikes.example.org",
                                                          roaming: false, place: SentinelPlace(latitude: 52.37, longitude: 4.89)),
                   minimal: SentinelEnrolment(token: "bbs_x", name: "Bus 12", serverURL: "https://bikes.example.org", roaming: true, place: nil)),
            Sample("SightingPage", SightingPage(sightings: [record], nextCursor: "1763719500000~s1", estimate: estimate),
                   minimal: SightingPage(sightings: [], nextCursor: nil)),
            Sample("PositionEstimate", estimate,
                   minimal: PositionEstimate(latitude: 52.0907, longitude: 5.1215, radius50: 18.5, radius90: 34.2, sources: 3,
                                             at: "2026-11-21T10:05:00.000Z", words: "within 35 m of Cafe Rosa, 9 times in 10, from 3 sentinels")),
            Sample("NotificationEvent", event, minimal: eventWithoutDistance),
            Sample("ReviewEvent", ReviewEvent(bikeId: "b1", bikeName: "Commuter", status: "sealed", message: "Someone reported finding this bike's tag hidden on them.",
                                              operatorContact: "ops@example.org", time: "2026-11-21T10:00:00.000Z"),
                   minimal: ReviewEvent(bikeId: "b1", bikeName: "Commuter", status: "released", message: "Released.", operatorContact: nil,
                                        time: "2026-11-21T10:00:00.000Z")),
            Sample("Health", Health(status: "ok", database: "sqlite")),
            Sample("PushKey", PushKey(publicKey: "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")),
            Sample("PushSubscriptionRequest", PushSubscriptionRequest(
                endpoint: "https://fcm.googleapis.com/fcm/send/abc",
                keys: .init(p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                            auth: "BTBZMqHH6r4Tts7J_aSIgg"))),
            Sample("PushSubscriptionCreated", PushSubscriptionCreated(id: "p1")),
            Sample("PushSubscription", subscription),
            Sample("PushSubscriptionList", PushSubscriptionList(subscriptions: [subscription])),
            Sample("NotificationSettings", NotificationSettings(push: true, email: false)),
            Sample("NotificationSettingsChange", NotificationSettingsChange(push: false, email: true),
                   minimal: NotificationSettingsChange(push: false)),
            Sample("PushPayload", notification, minimal: OwnerNotification(
                event: .recovered, bikeId: "b1", bikeName: "Commuter", ownerId: "a1", place: nil, latitude: nil, longitude: nil,
                time: "2026-11-21T11:00:00.000Z", zone: nil)),
            Sample("FoundTagLookup", FoundTagLookup(tag: "B5B182C7-EAB1-4988-AA99-B5C1517008D9/1/25626")),
            Sample("FoundTagAnswer", FoundTagAnswer(registered: true)),
            Sample("FoundTagMessage", FoundTagMessage(tag: "B5B182C7-EAB1-4988-AA99-B5C1517008D9/1/25626", message: "Found at the station",
                                                      contact: "0612345678"),
                   minimal: FoundTagMessage(tag: "B5B182C7-EAB1-4988-AA99-B5C1517008D9/1/25626", message: "Found at the station")),
            Sample("HiddenTagReport", HiddenTagReport(tag: "B5B182C7-EAB1-4988-AA99-B5C1517008D9/1/25626", message: "in my coat",
                                                      contact: "me@example.org"),
                   minimal: HiddenTagReport(tag: "B5B182C7-EAB1-4988-AA99-B5C1517008D9/1/25626")),
            Sample("HiddenTagReceipt", HiddenTagReceipt(reference: "ar_6f9619ff")),
        ]
    }()

    static func checker() throws -> SchemaChecker {
        let document = try Yams.load(yaml: try String(contentsOfFile: specPath, encoding: .utf8))
        return try SchemaChecker(document: try #require(document as? [String: Any], "\(specPath) is not a YAML mapping"))
    }

    static func value(_ data: Data) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: data) }

    @Test func everySchemaHasAWireType() throws {
        let checker = try Self.checker()
        #expect(Set(checker.schemas.keys) == Set(Self.samples.map(\.schema)))
    }

    @Test(arguments: samples)
    func encodesWhatTheSpecDescribes(sample: Sample) throws {
        let checker = try Self.checker()
        let problems = checker.problems(try Self.value(sample.full), schema: sample.schema, complete: true)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        if let minimal = sample.minimal {
            let problems = checker.problems(try Self.value(minimal), schema: sample.schema, complete: false)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// The Swift type asks for no field the spec lets a client leave out.
    @Test(arguments: samples)
    func decodesFromTheRequiredFieldsAlone(sample: Sample) throws {
        let checker = try Self.checker()
        let required = Set(checker.schemas[sample.schema]?["required"] as? [String] ?? [])
        let object = try #require(try JSONSerialization.jsonObject(with: sample.full) as? [String: Any])
        let cut = try JSONSerialization.data(withJSONObject: object.filter { required.contains($0.key) })
        #expect(throws: Never.self) { try sample.decode(cut) }
    }

    @Test func enumerationsMatch() throws {
        let checker = try Self.checker()
        func enumeration(_ schema: String, _ property: String) -> [String] {
            let properties = checker.schemas[schema]?["properties"] as? [String: Any]
            return ((properties?[property] as? [String: Any])?["enum"] as? [Any] ?? []).map { "\($0)" }
        }
        #expect(enumeration("SightingItem", "event") == SightingEvent.allCases.map(\.rawValue))
        #expect(enumeration("Sighting", "event") == SightingEvent.allCases.map(\.rawValue))
        #expect(enumeration("SightingItem", "zone") == SightingZones.all)
        #expect(enumeration("NotificationEvent", "zone") == SightingZones.all)
        #expect(enumeration("PushPayload", "event") == OwnerNotification.Event.allCases.map(\.rawValue))
    }

    /// The checker itself: a field the spec does not name, a wrong type, a missing required field.
    @Test func checkerCatchesDrift() throws {
        let checker = try Self.checker()
        let renamed = try Self.value(Data(#"{"id":"a1","mail":"ana@example.org"}"#.utf8))
        #expect(checker.problems(renamed, schema: "Account", complete: false).count == 2)
        let retyped = try Self.value(Data(#"{"version":"7","beacons":[]}"#.utf8))
        #expect(!checker.problems(retyped, schema: "MissingList", complete: false).isEmpty)
        let badTime = try Self.value(Data(#"{"status":"ok","database":"mysql"}"#.utf8))
        #expect(!checker.problems(badTime, schema: "Health", complete: false).isEmpty)
    }
}
