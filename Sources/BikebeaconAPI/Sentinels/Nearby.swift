import Beacon

/// A home sentinel as its owner sees it: one enrolled with `sentinels add --owner EMAIL`.
public struct HomeSentinel: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    /// While set and ahead, the sentinel reports the tags it hears (`POST /v1/sentinels/{id}/listen`).
    public var listeningUntil: String?

    public init(id: String, name: String, listeningUntil: String?) {
        self.id = id
        self.name = name
        self.listeningUntil = listeningUntil
    }
}

public struct HomeSentinelList: Codable, Sendable, Equatable {
    public var sentinels: [HomeSentinel]

    public init(sentinels: [HomeSentinel]) {
        self.sentinels = sentinels
    }
}

/// One tag a home sentinel hears: its identity, median RSSI over the last seconds, and, when it is
/// already on one of the owner's bikes, that bike's name.
public struct NearbyBeacon: Codable, Sendable, Equatable {
    public var beacon: BeaconID
    public var rssi: Int
    /// Advertisements the median is over.
    public var count: Int
    public var heardAt: String
    public var bike: String?

    public init(beacon: BeaconID, rssi: Int, count: Int, heardAt: String, bike: String? = nil) {
        self.beacon = beacon
        self.rssi = rssi
        self.count = count
        self.heardAt = heardAt
        self.bike = bike
    }
}

/// `GET /v1/sentinels/{id}/nearby`: what the home sentinel hears, loudest first.
public struct NearbyBeacons: Codable, Sendable, Equatable {
    public var listeningUntil: String?
    public var beacons: [NearbyBeacon]

    public init(listeningUntil: String?, beacons: [NearbyBeacon]) {
        self.listeningUntil = listeningUntil
        self.beacons = beacons
    }
}

/// `GET /v1/sentinel/listen`: the sentinel is asked to report the tags it hears until then.
public struct ListenRequest: Codable, Sendable, Equatable {
    public var listeningUntil: String

    public init(listeningUntil: String) {
        self.listeningUntil = listeningUntil
    }
}

/// `POST /v1/sentinel/nearby`: the tags a home sentinel heard in the last seconds (time stamps are the server's).
public struct NearbyReport: Codable, Sendable, Equatable {
    public struct Heard: Codable, Sendable, Equatable {
        public var beacon: BeaconID
        public var rssi: Int
        public var count: Int

        public init(beacon: BeaconID, rssi: Int, count: Int) {
            self.beacon = beacon
            self.rssi = rssi
            self.count = count
        }
    }

    public var beacons: [Heard]

    public init(beacons: [Heard]) {
        self.beacons = beacons
    }
}
