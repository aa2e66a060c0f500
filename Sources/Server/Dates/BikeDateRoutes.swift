import BikebeaconAPI
import Foundation
import Hummingbird

/// A bike's dates (insurance, inspection, service): the owner adds, lists, changes and deletes them;
/// the delivery worker sends each reminder once, by push and email, at 09:00 in the owner's zone.
enum BikeDateRoutes {
    static func add(to callers: RouterGroup<AppContext>, state: ServerState) {
        let dates = BikeDateStore(database: state.database)

        callers.post("/v1/bikes/{id}/dates") { request, context in
            let owner = try context.owner().accountID
            let entry = try entry(try await JSONResponse.decode(BikeDateRequest.self, from: request, context: context))
            let created: BikeDate?
            do {
                created = try await dates.create(bikeID: try BikeRoutes.bikeID(context), owner: owner, entry: entry, now: state.now)
            } catch BikeDateStore.Failure.tooMany {
                throw APIError(.conflict, "too_many_dates", "a bike has at most \(BikeDateStore.maxPerBike) dates; delete one first")
            }
            guard let created else { throw APIError.bikeNotFound }
            await wakeReminders(entry, state: state)
            return try JSONResponse.make(created, status: .created)
        }

        callers.get("/v1/bikes/{id}/dates") { _, context in
            let owner = try context.owner().accountID
            let id = try BikeRoutes.bikeID(context)
            guard try await state.bikes.find(id: id, owner: owner) != nil else { throw APIError.bikeNotFound }
            return try JSONResponse.make(BikeDateList(dates: try await dates.list(owner: owner, bikeID: id)))
        }

        callers.put("/v1/bikes/{id}/dates/{date}") { request, context in
            let owner = try context.owner().accountID
            let entry = try entry(try await JSONResponse.decode(BikeDateRequest.self, from: request, context: context))
            guard let id = context.parameters.get("date"), id.count <= 64,
                  let updated = try await dates.update(id: id, bikeID: try BikeRoutes.bikeID(context), owner: owner, entry: entry, now: state.now)
            else { throw notFound }
            await wakeReminders(entry, state: state)
            return try JSONResponse.make(updated)
        }

        callers.delete("/v1/bikes/{id}/dates/{date}") { _, context in
            let owner = try context.owner().accountID
            guard let id = context.parameters.get("date"), id.count <= 64,
                  try await dates.delete(id: id, bikeID: try BikeRoutes.bikeID(context), owner: owner)
            else { throw notFound }
            return Response(status: .noContent)
        }
    }

    static let notFound = APIError(.notFound, "not_found", "no such date on this bike")

    /// The request checked field by field, with what is wrong said in the error.
    static func entry(_ request: BikeDateRequest) throws -> BikeDateStore.Entry {
        let name = request.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= ReminderSchedule.maxNameLength else {
            throw APIError.invalid("'name' says what falls due (\"Insurance renewal\"), 1…\(ReminderSchedule.maxNameLength) characters")
        }
        guard let due = ReminderSchedule.day(request.due) else {
            throw APIError.invalid("'due' is a day, YYYY-MM-DD (e.g. 2027-03-01), between 2000 and 2199")
        }
        let lead = request.remindDaysBefore ?? ReminderSchedule.defaultLeadDays
        guard (0...ReminderSchedule.maxLeadDays).contains(lead) else {
            throw APIError.invalid("'remindDaysBefore' is 0…\(ReminderSchedule.maxLeadDays) days")
        }
        let zoneName = request.timeZone ?? "UTC"
        guard zoneName.count <= 64, let zone = TimeZone(identifier: zoneName) else {
            throw APIError.invalid("'timeZone' is an IANA time zone such as Europe/Amsterdam; '\(zoneName.prefix(64))' is not one")
        }
        return BikeDateStore.Entry(name: name, due: request.due, dueMilliseconds: due, leadDays: lead, timeZone: zone, timeZoneName: zoneName)
    }

    /// A reminder due already (a date saved close to its day) goes out now, not at the worker's next idle check.
    private static func wakeReminders(_ entry: BikeDateStore.Entry, state: ServerState) async {
        let now = state.now
        guard entry.state(now: now) == "scheduled", entry.remindAt() <= now else { return }
        await state.database.events.signal(.deliveries)
    }
}
