import BikebeaconAPI
import Hummingbird

/// Share links: the owner makes, lists and revokes them (`/v1/bikes/{id}/shares`); anyone holding one
/// opens `/s/{token}`, a plain page that reads `/v1/shared/{token}` without an account.
/// An expired or revoked link answers 410, an unknown one 404, each with a page that says so.
enum ShareRoutes {
    static func add(to router: Router<AppContext>, callers: RouterGroup<AppContext>, state: ServerState) {
        let shares = ShareStore(database: state.database)

        callers.post("/v1/bikes/{id}/shares") { request, context in
            let owner = try context.owner().accountID
            let body = try await JSONResponse.decode(ShareRequest.self, from: request, context: context)
            guard (1...ShareStore.maxHours).contains(body.expiresIn) else {
                throw APIError.invalid("'expiresIn' is in hours, 1…\(ShareStore.maxHours) (30 days)")
            }
            if let label = body.label, label.count > ShareStore.maxLabelLength {
                throw APIError.invalid("'label' is longer than \(ShareStore.maxLabelLength) characters")
            }
            guard var share = try await shares.create(bikeID: try BikeRoutes.bikeID(context), owner: owner, request: body, now: state.now)
            else { throw APIError.bikeNotFound }
            share.url = "\(PublicOrigin.of(request, context: context, state: state))/s/\(share.token ?? "")"
            return try JSONResponse.make(share, status: .created)
        }

        callers.get("/v1/bikes/{id}/shares") { _, context in
            let owner = try context.owner().accountID
            let id = try BikeRoutes.bikeID(context)
            guard try await state.bikes.find(id: id, owner: owner) != nil else { throw APIError.bikeNotFound }
            return try JSONResponse.make(ShareList(shares: try await shares.list(owner: owner, bikeID: id, now: state.now)))
        }

        callers.delete("/v1/bikes/{id}/shares/{share}") { _, context in
            let owner = try context.owner().accountID
            guard let share = context.parameters.get("share"), share.count <= 64,
                  try await shares.revoke(id: share, bikeID: try BikeRoutes.bikeID(context), owner: owner, now: state.now)
            else { throw APIError(.notFound, "not_found", "no such share link on this bike") }
            return Response(status: .noContent)
        }

        let page = DashboardRoutes.load()["share.html"]
        let headers = DashboardRoutes.securityHeaders(tiles: state.options.mapTiles)
        router.get("/s/{token}") { request, context in
            let resolved = try await shares.resolve(token: context.parameters.get("token") ?? "", now: state.now)
            guard let resolved else { return SharePages.notFound(headers: headers) }
            guard resolved.share.status == "active" else { return SharePages.gone(resolved.share, headers: headers) }
            try await shares.countView(id: resolved.share.id, now: state.now)
            try await state.readLog.record(bikeID: resolved.share.bikeId, owner: resolved.ownerID, reader: .share(resolved.share.id),
                                           route: .sharePage, client: AccountRoutes.client(of: request, context: context, state: state),
                                           now: state.now)
            return try DashboardRoutes.response(page, headers: headers)
        }

        router.get("/v1/shared/{token}") { request, context in
            guard let resolved = try await shares.resolve(token: context.parameters.get("token") ?? "", now: state.now) else {
                throw APIError(.notFound, "not_found", "no such share link; ask the bike's owner for a new one")
            }
            guard resolved.share.status == "active" else {
                throw APIError(.gone, "share_\(resolved.share.status)",
                               resolved.share.status == "paused" ? "this share link is paused for now; ask the bike's owner if you need it"
                                : "this share link has \(resolved.share.status == "revoked" ? "been revoked" : "expired"); ask the bike's owner for a new one")
            }
            guard let bike = try await state.bikes.find(id: resolved.share.bikeId, owner: resolved.ownerID) else {
                throw APIError(.notFound, "not_found", "no such share link; ask the bike's owner for a new one")
            }
            let sightings = try await state.sightings.page(bikeID: bike.id, after: nil, limit: 500, for: .anyone).sightings
            try await state.readLog.record(bikeID: bike.id, owner: resolved.ownerID, reader: .share(resolved.share.id), route: .shared,
                                           client: AccountRoutes.client(of: request, context: context, state: state), now: state.now)
            let coverage = try await CoverageStore(database: state.database).coverage(bikeID: bike.id, owner: resolved.ownerID,
                                                                                     audience: .anyone, now: state.now)
            return try JSONResponse.make(SharedBike(
                name: bike.name, make: bike.make, model: bike.model, colour: bike.colour, frameNumber: bike.frameNumber,
                engineNumber: bike.engineNumber, notes: resolved.share.includeNotes ? bike.notes : nil, missing: bike.missing,
                missingSince: bike.missingSince, expiresAt: resolved.share.expiresAt, sightings: sightings.map(SharedSighting.init),
                coverage: coverage, estimate: try await SightingEstimates(database: state.database).estimate(bikeID: bike.id, for: .anyone)),
                headers: [.cacheControl: "no-store"])
        }
    }
}
