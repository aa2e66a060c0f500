/// `POST /v1/bikes/{id}/dates`, `PUT /v1/bikes/{id}/dates/{date}`: a date in a bike's life that its
/// owner wants to be reminded of (insurance renewal, inspection, service).
public struct BikeDateRequest: Codable, Sendable, Equatable {
    /// What falls due, e.g. "Insurance renewal"; 1…100 characters.
    public var name: String
    /// The day it falls due, `YYYY-MM-DD`.
    public var due: String
    /// Days before `due` to send the reminder, 0…365; 7 when left out.
    public var remindDaysBefore: Int?
    /// The owner's IANA time zone (`Europe/Amsterdam`): the reminder goes out at 09:00 there. UTC when left out.
    public var timeZone: String?

    public init(name: String, due: String, remindDaysBefore: Int? = nil, timeZone: String? = nil) {
        self.name = name
        self.due = due
        self.remindDaysBefore = remindDaysBefore
        self.timeZone = timeZone
    }
}

/// A bike's date and the state of its reminder.
public struct BikeDate: Codable, Sendable, Equatable {
    public var id: String
    public var bikeId: String
    public var name: String
    public var due: String
    public var remindDaysBefore: Int
    public var timeZone: String
    /// When the reminder goes out (or went out): 09:00 in `timeZone`, `remindDaysBefore` days before `due`.
    public var remindAt: String
    /// `scheduled`, `sent`, or `past` (the day had passed when the date was saved: no reminder).
    public var reminder: String
    public var remindedAt: String?

    public init(id: String, bikeId: String, name: String, due: String, remindDaysBefore: Int, timeZone: String, remindAt: String,
                reminder: String, remindedAt: String?) {
        self.id = id
        self.bikeId = bikeId
        self.name = name
        self.due = due
        self.remindDaysBefore = remindDaysBefore
        self.timeZone = timeZone
        self.remindAt = remindAt
        self.reminder = reminder
        self.remindedAt = remindedAt
    }
}

public struct BikeDateList: Codable, Sendable, Equatable {
    /// Soonest first.
    public var dates: [BikeDate]

    public init(dates: [BikeDate]) {
        self.dates = dates
    }
}
