import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird

/// What sentinels call: the missing list (with ETag and deltas) and sighting batches.
enum SentinelRoutes {
    /// The list's strong tag; the gzipped body has its own (`"v7-gzip"`), as its bytes differ.
    static func etag(version: Int64, gzip: Bool = false) -> String { gzip ? "\"v\(version)-gzip\"" : "\"v\(version)\"" }

    /// A body made once per version (`MissingListBodies`), gzipped when the client takes it. `Vary` tells
    /// caches (and a proxy) that the encoding follows `Accept-Encoding`.
    static func answer(_ body: MissingListBodies.Body, gzip: Bool, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.eTag] = etag(version: body.version, gzip: gzip)
        headers[.vary] = "Accept-Encoding"
        if gzip { headers[.contentEncoding] = "gzip" }
        return JSONResponse.make(encoded: gzip ? body.gzip : body.json, headers: headers)
    }

    static func add(to router: RouterGroup<AppContext>, state: ServerState) {
        router.get("/v1/missing") { request, context in
            let sentinel = try context.sentinel()
            // The heartbeat first: it is stored even when the list cannot be served.
            if let text = request.headers[heartbeatHeader] {
                let notified = try await state.sentinelHealth.record(try heartbeat(text), from: sentinel, now: state.now)
                await state.database.events.signal(accounts: notified)
            }
            let since = try request.uri.queryParameters.get("since").map { text in
                guard let since = Int64(text), since >= 0 else { throw APIError.invalid("'since' must be a list version (an integer ≥ 0)") }
                return since
            }
            // The common poll, answered from memory (`SentinelPollCache`): a sentinel holding the current
            // list gets a 304 with or without `since` (it sends both), not an empty delta it would have to parse.
            let gzip = AcceptEncoding.allowsGzip(request.headers[.acceptEncoding])
            if let match = request.headers[.ifNoneMatch] {
                let version = try await state.sentinelPolls.missingVersion()
                if matches(match, version: version) {
                    return Response(status: .notModified, headers: [.eTag: etag(version: version, gzip: gzip), .vary: "Accept-Encoding"])
                }
            }
            if let since, let delta = try await state.missingListBodies.delta(since: since, from: state.missingList) {
                // The version's tag, which the sentinel sends next time (it keeps whatever tag the last answer had).
                return answer(delta, gzip: gzip)
            }
            return answer(try await state.missingListBodies.full(from: state.missingList), gzip: gzip, headers: [.cacheControl: "no-cache"])
        }

        router.post("/v1/sightings") { request, context in
            let sentinel = try context.sentinel()
            if let wait = try await state.sentinelLimiter.retryAfter(sentinel.id, now: state.now) {
                throw APIError.rateLimited(retryAfter: wait, "this sentinel sends too often; wait \(wait) s and send larger batches")
            }
            let batch = try await JSONResponse.decode(SightingBatch<LenientSightingItem>.self, from: request, context: context)
            guard batch.sightings.count <= SightingBatch<SightingItem>.maxItems else {
                throw APIError(.contentTooLarge, "batch_too_large", "send at most \(SightingBatch<SightingItem>.maxItems) sightings per request")
            }
            let (valid, invalid) = SightingValidation.validate(batch.sightings, from: SightingSource(sentinel), now: state.now)
            let listed = try await state.missingBikes.bikes(version: state.sentinelPolls.missingVersion(), in: state.database)
            let result = try await state.sightings.ingest(valid, from: sentinel, now: state.now, listed: listed)
            await state.database.events.signal(accounts: result.notifiedAccounts)
            let rejected = invalid + result.rejected
            state.metrics.countSightings(accepted: result.accepted, duplicates: result.duplicates, rejected: rejected.count)
            // A home sentinel's name may say whose home it is: /metrics names it by its id.
            state.metrics.countRejections(rejected, sentinel: sentinel.home ? sentinel.id : sentinel.name)
            return try JSONResponse.make(SightingResult(accepted: result.accepted, duplicates: result.duplicates, rejected: rejected))
        }
    }

    static let heartbeatHeader = HTTPField.Name(SentinelHeartbeat.headerName)!

    /// The heartbeat header's value, or a 400 (`invalid_heartbeat`) naming the field at fault. The
    /// sentinel is the token's: the value cannot name another one, and fields it does not know are ignored.
    static func heartbeat(_ text: String) throws(APIError) -> SentinelHeartbeat {
        func refuse(_ why: String) -> APIError {
            APIError(.badRequest, "invalid_heartbeat", "the \(SentinelHeartbeat.headerName) header \(why): the list is served when the header is left out")
        }
        guard text.utf8.count <= SentinelHeartbeat.maxHeaderBytes else { throw refuse("is longer than \(SentinelHeartbeat.maxHeaderBytes) bytes") }
        let beat: SentinelHeartbeat
        do {
            beat = try JSONDecoder().decode(SentinelHeartbeat.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw refuse("is not the expected JSON: \(ErrorMiddleware<AppContext>.describe(error))")
        } catch {
            throw refuse("is not JSON")
        }
        if let (field, problem) = HeartbeatLimits.violation(in: beat) { throw refuse("field '\(field)' \(problem)") }
        return beat
    }

    /// `If-None-Match` holds `*` or a comma-separated list of entity tags (weak ones never match strongly);
    /// either encoding's tag of `version` matches: both are the same list. Read in place, without making the two
    /// tags to compare with: every sentinel's poll asks (#36, perf).
    static func matches(_ header: String, version: Int64) -> Bool {
        var rest = header[...]
        while true {
            let end = rest.firstIndex(of: ",") ?? rest.endIndex
            let candidate = rest[..<end].withoutOptionalWhitespace
            if candidate == "*" || taggedVersion(candidate) == version { return true }
            guard end < rest.endIndex else { return false }
            rest = rest[rest.index(after: end)...]
        }
    }

    /// The version one of our strong tags names (`"v7"` or `"v7-gzip"`, as `etag` writes them); nil for any other tag.
    static func taggedVersion(_ tag: Substring) -> Int64? {
        var text = tag.utf8[...]
        guard text.popFirst() == UInt8(ascii: "\""), text.popLast() == UInt8(ascii: "\""), text.popFirst() == UInt8(ascii: "v")
        else { return nil }
        if text.count > 5, text.suffix(5).elementsEqual("-gzip".utf8) { text = text.dropLast(5) }
        // `etag` writes no sign and no leading zero.
        guard let first = text.first, first != UInt8(ascii: "0") || text.count == 1 else { return nil }
        var version: Int64 = 0
        for byte in text {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (tens, overflow) = version.multipliedReportingOverflow(by: 10)
            let (sum, carry) = tens.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            version = sum
        }
        return version
    }
}
