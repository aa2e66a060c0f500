import BikebeaconAPI
import Foundation
import SQLKit

/// The operator's export for an abuse case (`bikebeacon-server reads`): for one bike, or every bike of
/// one owner, its missing reports with their police references (`MissingReports`) and who read its
/// sightings (`ReadLog`), oldest first. Deleted bikes and accounts still show by their ids.
public struct ReadLogExport: Sendable, Equatable {
    /// A bike as it is now; nil fields when it (or its owner's account) has been deleted.
    public struct Bike: Sendable, Equatable {
        public var id: String
        public var name: String?
        public var owner: String
        public var tag: String?
        public var tagSince: Int64?
        public var missingSince: Int64?
        public var missingUntil: Int64?
    }

    public struct Report: Sendable, Equatable {
        public var bikeID: String
        public var time: Int64
        public var tag: String
        public var tagSince: Int64
        public var policeReference: String?
        /// The reference let a tag under the new-tag hold onto the list: the owner's word alone, to be checked.
        public var passedHold = false
    }

    public struct Read: Sendable, Equatable {
        public var bikeID: String
        public var time: Int64
        /// `account EMAIL`, `share link ID "LABEL"`, or the stored key when the account or link is gone.
        public var reader: String
        public var route: String
        public var client: String
        /// The police reference that put the bike's tag of the time on the list: the latest given for that
        /// tag at or before the read (a renewal without one does not erase it).
        public var policeReference: String?
    }

    public var bikes: [Bike]
    public var reports: [Report]
    public var reads: [Read]

    /// Everything on record for `subject` (a bike's id, an owner's e-mail or account id) since `since`;
    /// nil when nothing matches it.
    public static func load(database: Database, subject: String, since: Int64 = 0) async throws -> ReadLogExport? {
        let subject = subject.trimmingCharacters(in: .whitespaces)
        guard !subject.isEmpty, subject.count <= 320 else { return nil }
        return try await database.withSession { db in
            let account = try await db.raw("SELECT id FROM accounts WHERE email = \(bind: subject.lowercased())")
                .first()?.decode(column: "id", as: String.self)
            let key = account ?? subject
            let match: SQLQueryString = "(bike_id = \(bind: key) OR owner_id = \(bind: key))"
            let reports = try await db.raw("""
                SELECT bike_id, beacon, beacon_since_ms, police_reference, time_ms, passed_hold FROM missing_reports
                WHERE \(match) AND time_ms >= \(bind: since) ORDER BY time_ms, id
                """).all().map { row in
                Report(bikeID: try row.decode(column: "bike_id", as: String.self), time: try row.decode(column: "time_ms", as: Int64.self),
                       tag: try row.decode(column: "beacon", as: String.self),
                       tagSince: try row.decode(column: "beacon_since_ms", as: Int64.self),
                       policeReference: try row.decode(column: "police_reference", as: String?.self),
                       passedHold: try row.decode(column: "passed_hold", as: Int.self) != 0)
            }
            // Reports before `since` still say which reference covered the first reads.
            let allReports = try await db.raw("""
                SELECT bike_id, beacon, police_reference, time_ms FROM missing_reports WHERE \(match) ORDER BY time_ms, id
                """).all().map { (bike: try $0.decode(column: "bike_id", as: String.self), time: try $0.decode(column: "time_ms", as: Int64.self),
                                  tag: try $0.decode(column: "beacon", as: String.self),
                                  reference: try $0.decode(column: "police_reference", as: String?.self)) }
            let reads = try await db.raw("""
                SELECT r.bike_id, r.reader, r.route, r.client, r.time_ms, a.email, s.id AS share_id, s.label
                FROM sighting_reads r
                LEFT JOIN accounts a ON r.reader = 'account:' || a.id
                LEFT JOIN shares s ON r.reader = 'share:' || s.id
                WHERE (r.bike_id = \(bind: key) OR r.owner_id = \(bind: key)) AND r.time_ms >= \(bind: since)
                ORDER BY r.time_ms, r.bike_id, r.route
                """).all().map { row in
                let bikeID = try row.decode(column: "bike_id", as: String.self)
                let time = try row.decode(column: "time_ms", as: Int64.self)
                var reader = try row.decode(column: "reader", as: String.self)
                if let email = try row.decode(column: "email", as: String?.self) {
                    reader = "account " + email
                } else if let share = try row.decode(column: "share_id", as: String?.self) {
                    let label = try row.decode(column: "label", as: String?.self) ?? ""
                    reader = "share link " + share + (label.isEmpty ? "" : " \"\(label)\"")
                }
                let before = allReports.filter { $0.bike == bikeID && $0.time <= time }
                let reference = before.last.flatMap { latest in before.last { $0.tag == latest.tag && $0.reference != nil }?.reference }
                return Read(bikeID: bikeID, time: time, reader: reader, route: try row.decode(column: "route", as: String.self),
                            client: try row.decode(column: "client", as: String.self), policeReference: reference)
            }
            let current = try await db.raw("""
                SELECT b.id, b.name, b.beacon_uuid, b.beacon_major, b.beacon_minor, b.beacon_since_ms, b.missing_since_ms,
                  b.missing_until_ms, a.email FROM bikes b JOIN accounts a ON a.id = b.owner_id
                WHERE b.id = \(bind: key) OR b.owner_id = \(bind: key) ORDER BY b.created_ms, b.id
                """).all().map { row in
                Bike(id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
                     owner: try row.decode(column: "email", as: String.self), tag: try MissingListStore.beacon(row)?.description,
                     tagSince: try row.decode(column: "beacon_since_ms", as: Int64?.self),
                     missingSince: try row.decode(column: "missing_since_ms", as: Int64?.self),
                     missingUntil: try row.decode(column: "missing_until_ms", as: Int64?.self))
            }
            // Bikes known only from the record: deleted since.
            var bikes = current
            for id in (reports.map(\.bikeID) + reads.map(\.bikeID)) where !bikes.contains(where: { $0.id == id }) {
                bikes.append(Bike(id: id, owner: account.map { _ in subject } ?? "a deleted account or bike"))
            }
            guard account != nil || !bikes.isEmpty else { return nil }
            return ReadLogExport(bikes: bikes, reports: reports, reads: reads)
        }
    }

    static func time(_ ms: Int64) -> String { Timestamp.format(milliseconds: ms) }

    /// Stored text (a bike's name, a share link's label, an address) as the terminal may show it (`TerminalText`),
    /// so an escape sequence in a name cannot rewrite the operator's terminal.
    static func printable(_ text: String) -> String { TerminalText.escaped(text) }

    /// For the terminal: each bike with its missing reports, then every read. Stored text is `printable`.
    public var text: String {
        var lines: [String] = []
        for bike in bikes {
            if let name = bike.name, let tag = bike.tag {
                lines.append("bike \(bike.id) \"\(Self.printable(name))\" of \(Self.printable(bike.owner)), tag \(tag) on it since \(bike.tagSince.map(Self.time) ?? "unknown")"
                    + (bike.missingSince.map { ", missing since \(Self.time($0))" + (bike.missingUntil.map { " until \(Self.time($0))" } ?? "") } ?? ", not missing"))
            } else {
                lines.append("bike \(Self.printable(bike.id)) (deleted; of \(Self.printable(bike.owner)))")
            }
            for report in reports where report.bikeID == bike.id {
                let held = Double(report.time - report.tagSince) / Double(NewTagHold.hour)
                lines.append("  marked missing \(Self.time(report.time)), tag \(report.tag) on the bike for \(String(format: "%.1f", held)) h: "
                    + (report.policeReference.map { "police reference \"\(Self.printable($0))\"" } ?? "no police reference")
                    + (report.passedHold ? " [PASSED THE NEW-TAG HOLD on this reference alone: check it with the police]" : ""))
            }
        }
        lines.append("reads of sightings (\(reads.count); at most one per reader, bike and route a minute):")
        for read in reads {
            lines.append("  \(Self.time(read.time))  bike \(Self.printable(read.bikeID))  \(read.route)  \(Self.printable(read.reader))  from \(Self.printable(read.client))")
        }
        return lines.joined(separator: "\n")
    }

    public static let csvHeader = ["time", "bike", "reader", "route", "client", "policeReference"]

    /// The reads as CSV (RFC 4180, formula characters defused), each with the police reference it was made under.
    public var csv: String {
        var lines = [Self.csvHeader.joined(separator: ",")]
        for read in reads {
            lines.append([Self.time(read.time), read.bikeID, read.reader, read.route, read.client, read.policeReference ?? ""]
                .map(SightingExport.field).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
