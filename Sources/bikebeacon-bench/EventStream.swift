import AsyncHTTPClient
import Foundation
import NIOCore
import Server

/// An open `/v1/events` stream, read in the background; `nextEvent` waits for the next event.
final class EventStream: Sendable {
    private let reader: Task<Void, Never>
    private let arrivals: EventSignal
    private let seen: Counter

    private actor Counter {
        var value: UInt64 = 0
        func set(_ new: UInt64) { value = new }
    }

    private init(reader: Task<Void, Never>, arrivals: EventSignal) {
        self.reader = reader
        self.arrivals = arrivals
        seen = Counter()
    }

    static func open(_ baseURL: String, token: String, client: HTTPClient) async throws -> EventStream {
        var request = HTTPClientRequest(url: baseURL + "/v1/events")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await client.execute(request, deadline: .distantFuture)
        guard response.status == .ok else { throw BenchError("GET /v1/events answered \(response.status.code)") }
        let arrivals = EventSignal()
        let reader = Task {
            var pending = ""
            do {
                for try await chunk in response.body {
                    pending += String(buffer: chunk)
                    while let end = pending.range(of: "\n\n") {
                        if pending[..<end.lowerBound].contains("event: sighting") { await arrivals.signal(.deliveries) }
                        pending = String(pending[end.upperBound...])
                    }
                }
            } catch {}
        }
        return EventStream(reader: reader, arrivals: arrivals)
    }

    /// Whether an event arrived (since the last call) within `timeout`.
    func nextEvent(timeout: Duration) async throws -> Bool {
        let before = await seen.value
        let now = await arrivals.wait(.deliveries, after: before, timeout: timeout)
        guard now != before else { return false }
        await seen.set(before + 1)
        return true
    }

    func close() { reader.cancel() }
}
