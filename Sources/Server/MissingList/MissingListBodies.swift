import BikebeaconAPI
import CompressNIO
import NIOCore

/// The bodies of `GET /v1/missing` for the current list version, as JSON and gzipped, each made once.
///
/// A city's list (10 000 bikes) is 1.4 MB of JSON and a fifth of that gzipped; when a version changes,
/// thousands of sentinels ask for the same delta (or, new or far behind, the same full list) within a
/// minute. Reading, encoding and compressing it once per version, not once per request, keeps that
/// burst from costing the server a core. Concurrent askers of one body share the one making it.
/// Bodies of older versions are dropped as soon as a newer version is seen.
actor MissingListBodies {
    /// One answer in both encodings, with the version it claims (its ETag).
    struct Body: Sendable {
        let version: Int64
        let json: ByteBuffer
        let gzip: ByteBuffer
    }

    /// Deltas kept per version: one for each `since` a sentinel asks from (most are one version
    /// behind); past this many, further ones are made per request rather than held.
    static let maxDeltas = 64

    private var version: Int64 = .min
    private var full: Task<Body, any Error>?
    private var deltas: [Int64: Task<Body?, any Error>] = [:]

    /// The whole list.
    func full(from store: MissingListStore) async throws -> Body {
        let current = try await store.version()
        let keep = adopt(current)
        if keep, let cached = full { return try await cached.value }
        let making = Task {
            let (version, bikes) = try await store.full()
            return try Self.encode(MissingList(version: version, beacons: bikes.map(MissingBeacon.init)), version: version)
        }
        if keep { full = making }
        do {
            return try await making.value
        } catch {
            // Not kept: the next request tries again.
            if full == making { full = nil }
            throw error
        }
    }

    /// The changes since `since`, or nil when `since` is too old (or from the future) for a delta.
    func delta(since: Int64, from store: MissingListStore) async throws -> Body? {
        let current = try await store.version()
        let keep = adopt(current)
        if keep, let cached = deltas[since] { return try await cached.value }
        let making = Task {
            try await store.delta(since: since).map { try Self.encode(MissingDelta($0), version: $0.version) }
        }
        if keep, deltas.count < Self.maxDeltas { deltas[since] = making }
        do {
            return try await making.value
        } catch {
            if deltas[since] == making { deltas[since] = nil }
            throw error
        }
    }

    /// Makes `current` the version held (dropping every body of an older one) unless a newer one is
    /// held already; true when the bodies held are `current`'s, so a body made now may be kept.
    private func adopt(_ current: Int64) -> Bool {
        if current > version {
            version = current
            full = nil
            deltas = [:]
        }
        return current == version
    }

    static func encode(_ value: some Encodable, version: Int64) throws -> Body {
        var json = ByteBuffer(bytes: try JSONResponse.encoder.encode(value))
        let plain = json
        let gzip = try json.compress(with: .gzip())
        return Body(version: version, json: plain, gzip: gzip)
    }
}
