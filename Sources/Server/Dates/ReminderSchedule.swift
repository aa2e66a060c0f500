import BikebeaconAPI
import Foundation

/// When a bike's date is reminded of: at 09:00 in the owner's time zone, so the push and mail come
/// in the morning of the day and not at midnight UTC, `remindDaysBefore` days before it is due. Pure.
enum ReminderSchedule {
    static let hourOfDay: Int64 = 9
    static let maxLeadDays = 365
    static let defaultLeadDays = 7
    static let maxNameLength = 100
    private static let day: Int64 = 86_400_000

    /// Epoch milliseconds of UTC midnight starting a `YYYY-MM-DD` day between 2000 and 2199; nil for anything else.
    static func day(_ text: String) -> Int64? {
        guard text.utf8.count == 10, text.hasPrefix("2"), let midnight = Timestamp.parse(text + "T00:00:00Z"),
              (946_684_800_000..<7_258_118_400_000).contains(midnight)
        else { return nil }
        return midnight
    }

    /// The reminder's time for a date due on `due` (from `day`), in the zone's local time that day.
    static func remindAt(due: Int64, leadDays: Int, timeZone: TimeZone) -> Int64 {
        let localNine = due - Int64(leadDays) * day + hourOfDay * 3_600_000
        // The offset at the guessed instant, then again at the corrected one: right across a DST change.
        let guess = localNine - offset(timeZone, at: localNine)
        return localNine - offset(timeZone, at: guess)
    }

    /// Whether the date is already over (its day has ended in the owner's zone), so no reminder is sent.
    static func isPast(due: Int64, timeZone: TimeZone, now: Int64) -> Bool {
        let endOfDay = due + day
        return now >= endOfDay - offset(timeZone, at: endOfDay)
    }

    private static func offset(_ zone: TimeZone, at milliseconds: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(milliseconds) / 1000))) * 1000
    }
}
