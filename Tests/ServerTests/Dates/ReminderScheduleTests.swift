import BikebeaconAPI
import Foundation
import Testing
@testable import Server

/// A reminder comes at 09:00 on the owner's wall clock, across daylight-saving changes and in zones with half hours.
@Suite struct ReminderScheduleTests {
    func at(_ due: String, lead: Int, _ zone: String) throws -> String {
        let day = try #require(ReminderSchedule.day(due))
        return Timestamp.format(milliseconds: ReminderSchedule.remindAt(due: day, leadDays: lead, timeZone: try #require(TimeZone(identifier: zone))))
    }

    @Test func nineInTheMorningWhereTheOwnerIs() throws {
        #expect(try at("2026-11-28", lead: 7, "Europe/Amsterdam") == "2026-11-21T08:00:00.000Z")
        #expect(try at("2026-11-28", lead: 0, "UTC") == "2026-11-28T09:00:00.000Z")
        #expect(try at("2027-07-01", lead: 1, "Europe/Amsterdam") == "2027-06-30T07:00:00.000Z")
        #expect(try at("2027-01-15", lead: 0, "America/St_Johns") == "2027-01-15T12:30:00.000Z")
        #expect(try at("2027-01-15", lead: 0, "Pacific/Auckland") == "2027-01-14T20:00:00.000Z")
    }

    /// The day the clocks go forward (Amsterdam, 28 March 2027 at 02:00) and back (31 October 2027 at 03:00).
    @Test func daylightSavingChangeDays() throws {
        #expect(try at("2027-03-28", lead: 0, "Europe/Amsterdam") == "2027-03-28T07:00:00.000Z")
        #expect(try at("2027-03-27", lead: 0, "Europe/Amsterdam") == "2027-03-27T08:00:00.000Z")
        #expect(try at("2027-10-31", lead: 0, "Europe/Amsterdam") == "2027-10-31T08:00:00.000Z")
        #expect(try at("2027-11-07", lead: 0, "America/New_York") == "2027-11-07T14:00:00.000Z")
    }

    @Test func onlyRealDaysAreAccepted() {
        for bad in ["2027-02-29", "2027-13-01", "2027-00-10", "27-03-01", "2027-3-1", "2027-03-01T00:00:00Z", "1999-12-31", "2200-01-01",
                    "", "２０２７-03-01", "2027/03/01"] {
            #expect(ReminderSchedule.day(bad) == nil, "\(bad)")
        }
        #expect(ReminderSchedule.day("2028-02-29") != nil && ReminderSchedule.day("2000-01-01") != nil && ReminderSchedule.day("2199-12-31") != nil)
    }

    /// A date is over once its day has ended where the owner is: a service due today still gets its reminder.
    @Test func pastMeansTheDayHasEnded() throws {
        let day = try #require(ReminderSchedule.day("2026-11-18"))
        let amsterdam = try #require(TimeZone(identifier: "Europe/Amsterdam"))
        let endInAmsterdam = try #require(Timestamp.parse("2026-11-18T23:00:00Z"))
        #expect(!ReminderSchedule.isPast(due: day, timeZone: amsterdam, now: endInAmsterdam - 1))
        #expect(ReminderSchedule.isPast(due: day, timeZone: amsterdam, now: endInAmsterdam))
    }
}
