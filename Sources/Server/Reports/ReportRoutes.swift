import BikebeaconAPI
import Hummingbird

/// `GET /v1/bikes/{id}/report?owner=NAME` and `GET /v1/bikes/{id}/report/{share token}?owner=NAME`: the
/// theft report for the police, as a printable page. The owner's name is taken as typed (the server
/// keeps none); the share token is a link the owner made, whose token only they hold, so the report
/// can carry it as a QR code. The token travels in the path, never the query string, which proxies and
/// analytics log and strip least carefully.
enum ReportRoutes {
    static func add(to callers: RouterGroup<AppContext>, state: ServerState) {
        let shares = ShareStore(database: state.database)
        let headers = DashboardRoutes.securityHeaders(tiles: state.options.mapTiles)

        @Sendable func report(_ request: Request, _ context: AppContext, token: String?) async throws -> Response {
            let owner = try context.owner().accountID
            guard let bike = try await state.bikes.find(id: try BikeRoutes.bikeID(context), owner: owner) else { throw APIError.bikeNotFound }
            let query = request.uri.queryParameters
            guard query.get("share") == nil else {
                throw APIError.invalid("'share' is no longer taken in the query string; open /v1/bikes/{id}/report/{share token} instead")
            }
            let ownerName = query.get("owner") ?? ""
            guard ownerName.count <= BikeFields.maxLength else { throw APIError.invalid("'owner' is longer than \(BikeFields.maxLength) characters") }
            var shareURL: String?
            if let token {
                guard let resolved = try await shares.resolve(token: token, now: state.now), resolved.share.bikeId == bike.id,
                      resolved.share.status == "active" else {
                    throw APIError.invalid("the share token is not a working share link of this bike; make a new one")
                }
                shareURL = "\(PublicOrigin.of(request, context: context, state: state))/s/\(token)"
            }
            // Oldest first, as a statement reads; at most the 500 newest, which is more than a page of paper holds.
            let sightings = try await state.sightings.page(bikeID: bike.id, after: nil, limit: 500, for: .anyone).sightings.reversed()
            try await state.readLog.record(bikeID: bike.id, owner: owner, reader: .account(owner), route: .report,
                                           client: AccountRoutes.client(of: request, context: context, state: state), now: state.now)
            let qr: Result<QRMatrix, QREncoder.Failure>? = shareURL.map { url in
                Result(catching: { () throws(QREncoder.Failure) -> QRMatrix in try QREncoder.encode(url) })
            }
            if case .failure(let error)? = qr { state.logger.warning("theft report without its QR code: \(error)") }
            let coverage = try await CoverageStore(database: state.database).coverage(bikeID: bike.id, owner: owner, audience: .anyone, now: state.now)
            let report = TheftReport(bike: bike, ownerName: ownerName, sightings: Array(sightings), shareURL: shareURL, qr: qr,
                                     coverage: coverage, generatedAt: Timestamp.format(milliseconds: state.now),
                                     estimate: try await SightingEstimates(database: state.database).estimate(bikeID: bike.id, for: .anyone))
            var fields = headers
            fields[.contentType] = "text/html; charset=utf-8"
            return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: report.html())))
        }

        callers.get("/v1/bikes/{id}/report") { request, context in try await report(request, context, token: nil) }
        callers.get("/v1/bikes/{id}/report/{share}") { request, context in
            try await report(request, context, token: context.parameters.get("share") ?? "")
        }
    }
}
