import Beacon
import BikebeaconAPI
import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import NIOCore
import NIOHTTP1
import Owners
import ServerClient
import Synchronization

/// "Find my tag" on a home sentinel: a request held open at the server returns when the owner asks
/// what the sentinel hears; then, and only then, it reports the tags it hears, each by its median
/// RSSI over the last few seconds, until the owner is done or two minutes pass. The rest of the
/// time it keeps nothing: `hear` is one flag check per batch.
final class NearbyListener: Sendable {
    /// Seconds the server holds a `listen` request.
    static let wait = 25
    static let reportEvery: Duration = .seconds(3)
    /// The server ends a window after two minutes; this ends it here too if the server cannot say so.
    static let longest: Duration = .seconds(125)
    static let maxTags = 100

    private let server: ServerConnection
    private let held: ServerConnection
    private let logger: Logger
    private let backoff = Backoff(initial: 2, maximum: 300)
    /// Whether the owner asked, and what was heard since the last report.
    private let state = Mutex<(listening: Bool, tags: NearestTag)>((false, NearestTag()))

    init(server: ServerConnection, logger: Logger) {
        self.server = server
        var held = server
        held.timeout = .seconds(Int64(Self.wait + 10))
        self.held = held
        self.logger = logger
    }

    /// Every live batch comes here: kept only while the owner is asking.
    func hear(_ batch: [Advertisement]) {
        state.withLock { state in
            guard state.listening else { return }
            for advertisement in batch { state.tags.record(advertisement) }
        }
    }

    /// Waits for the owner's requests and answers them, until cancelled or the server says this is no home sentinel.
    func run(sleep: @Sendable (Double) async throws -> Void) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let (status, _, body) = try await held.send(.GET, "/v1/sentinel/listen?wait=\(Self.wait)")
                switch status {
                case .ok:
                    failures = 0
                    try await listen()
                case .noContent:
                    failures = 0
                case .notFound:
                    logger.info("this sentinel is no owner's home sentinel, so \"Find my tag\" is off (the server's operator enrols one with `sentinels add --owner EMAIL`)")
                    return
                default:
                    throw ServerError(status: status, body: body)
                }
            } catch {
                if Task.isCancelled { return }
                failures += 1
                let delay = backoff.delay(afterFailures: failures, random: Double.random(in: 0...1)) ?? backoff.maximum
                logger.warning("cannot hear from the server whether the owner asks what this sentinel hears (\"Find my tag\"); asking again later",
                               metadata: ["error": "\(error)", "retry_in_s": "\(Int(delay))"])
                try? await sleep(delay)
            }
        }
    }

    private func listen() async throws {
        logger.notice("the owner asked what this sentinel hears (\"Find my tag\"): reporting the tags heard, for two minutes at most")
        state.withLock { $0 = (true, NearestTag()) }
        defer { state.withLock { $0 = (false, NearestTag()) } }
        let end = ContinuousClock.now + Self.longest
        while ContinuousClock.now < end {
            try await Task.sleep(for: Self.reportEvery)
            let report = NearbyReport(beacons: state.withLock { state in
                let heard = state.tags.candidates().prefix(Self.maxTags).map {
                    NearbyReport.Heard(beacon: $0.beacon, rssi: Int($0.medianRSSI.rounded()), count: $0.readings)
                }
                state.tags = NearestTag()
                return Array(heard)
            })
            let (status, _, body) = try await server.send(.POST, "/v1/sentinel/nearby", json: try APIJSON.encoder().encode(report))
            if status == .conflict {
                logger.notice("the owner is done (\"Find my tag\"): no more tags reported")
                return
            }
            guard status == .noContent else { throw ServerError(status: status, body: body) }
        }
    }
}
