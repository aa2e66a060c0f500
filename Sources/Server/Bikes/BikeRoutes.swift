import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird

/// Owners' bikes: CRUD, reporting missing and recovered, and each bike's sightings.
/// Another owner's bike answers 404, exactly like a bike that does not exist.
enum BikeRoutes {
    static func add(to router: RouterGroup<AppContext>, state: ServerState) {
        router.post("/v1/bikes") { request, context in
            let owner = try context.owner().accountID
            let fields = try await JSONResponse.decode(BikeFields.self, from: request, context: context)
            try fields.validate(creating: true)
            let bike = try await BeaconProbes.counting(owner: owner, beacon: fields.beacon, state: state) {
                try await state.bikes.create(owner: owner, fields: fields, now: state.now)
            }
            return try JSONResponse.make(bike, status: .created, headers: [.location: "/v1/bikes/\(bike.id)"])
        }

        router.get("/v1/bikes") { request, context in
            let owner = try context.owner().accountID
            return try JSONResponse.make(BikeList(bikes: try await state.bikes.list(owner: owner)))
        }

        router.get("/v1/bikes/{id}") { request, context in
            let owner = try context.owner().accountID
            guard let bike = try await state.bikes.find(id: try bikeID(context), owner: owner) else { throw APIError.bikeNotFound }
            return try JSONResponse.make(bike)
        }

        router.patch("/v1/bikes/{id}") { request, context in
            let owner = try context.owner().accountID
            let id = try bikeID(context)
            let fields = try await JSONResponse.decode(BikeFields.self, from: request, context: context)
            try fields.validate(creating: false)
            let updated = try await BeaconProbes.counting(owner: owner, beacon: fields.beacon, state: state) {
                try await state.bikes.update(id: id, owner: owner, fields: fields, now: state.now)
            }
            guard let bike = updated else {
                throw APIError.bikeNotFound
            }
            return try JSONResponse.make(bike)
        }

        router.delete("/v1/bikes/{id}") { request, context in
            let owner = try context.owner().accountID
            guard try await state.bikes.delete(id: try bikeID(context), owner: owner, now: state.now) else { throw APIError.bikeNotFound }
            return Response(status: .noContent)
        }

        router.post("/v1/bikes/{id}/missing") { request, context in
            let owner = try context.owner().accountID
            let id = try bikeID(context)
            let body = try await JSONResponse.decodeIfPresent(MissingRequest.self, from: request, context: context)
            let reference = try NewTagHold.reference(body?.policeReference)
            guard let bike = try await state.bikes.setMissing(id: id, owner: owner, missing: true, policeReference: reference, now: state.now)
            else { throw APIError.bikeNotFound }
            if reference != nil, let passed = try await MissingReports.claimPassedHold(bikeID: id, database: state.database) {
                await PoliceReferenceNotice.tell(state: state, bikeID: id, ownerID: owner, report: passed)
            }
            return try JSONResponse.make(bike)
        }

        router.post("/v1/bikes/{id}/recovered") { request, context in
            let owner = try context.owner().accountID
            guard let bike = try await state.bikes.setMissing(id: try bikeID(context), owner: owner, missing: false, now: state.now)
            else { throw APIError.bikeNotFound }
            await state.database.events.signal(accounts: [owner])
            return try JSONResponse.make(bike)
        }

        let coverage = CoverageStore(database: state.database)
        router.get("/v1/bikes/{id}/coverage") { request, context in
            let owner = try context.owner().accountID
            let id = try bikeID(context)
            guard let found = try await coverage.coverage(bikeID: id, owner: owner, audience: .owner, now: state.now)
            else { throw APIError.bikeNotFound }
            // It carries the bike's newest place: a read (`ReadLog`).
            if found.place != nil {
                try await state.readLog.record(bikeID: id, owner: owner, reader: .account(owner), route: .coverage,
                                               client: AccountRoutes.client(of: request, context: context, state: state), now: state.now)
            }
            return try JSONResponse.make(found, headers: [.cacheControl: "no-store"])
        }

        let estimates = SightingEstimates(database: state.database)
        router.get("/v1/bikes/{id}/sightings") { request, context in
            let owner = try context.owner().accountID
            let id = try bikeID(context)
            guard try await state.bikes.find(id: id, owner: owner) != nil else { throw APIError.bikeNotFound }
            let query = request.uri.queryParameters
            let format = query.get("format") ?? "json"
            guard ["json", "csv", "geojson"].contains(format) else { throw APIError.invalid("'format' must be json, csv or geojson") }
            let maxLimit = format == "json" ? 500 : 10_000
            let limit: Int
            if let text = query.get("limit") {
                guard let value = Int(text), (1...maxLimit).contains(value) else {
                    throw APIError.invalid("'limit' must be 1…\(maxLimit)")
                }
                limit = value
            } else {
                limit = format == "json" ? 50 : maxLimit
            }
            var cursor: SightingCursor?
            if let text = query.get("cursor") {
                guard let parsed = SightingCursor(text) else { throw APIError.invalid("'cursor' is not a cursor this server handed out") }
                cursor = parsed
            }
            let page = try await state.sightings.page(bikeID: id, after: cursor, limit: limit, for: .owner)
            let route: ReadLog.Route = format == "csv" ? .sightingsCSV : format == "geojson" ? .sightingsGeoJSON : .sightings
            try await state.readLog.record(bikeID: id, owner: owner, reader: .account(owner), route: route,
                                           client: AccountRoutes.client(of: request, context: context, state: state), now: state.now)
            var headers: HTTPFields = [:]
            if let next = page.nextCursor { headers[HTTPField.Name("Next-Cursor")!] = next }
            switch format {
            case "csv":
                headers[.contentType] = "text/csv; charset=utf-8"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: SightingExport.csv(page.sightings))))
            case "geojson":
                headers[.contentType] = "application/geo+json"
                let estimate = cursor == nil ? try await estimates.estimate(bikeID: id, for: .owner) : nil
                return Response(status: .ok, headers: headers,
                                body: .init(byteBuffer: ByteBuffer(bytes: try SightingExport.geoJSON(page.sightings, estimate: estimate))))
            default:
                var page = page
                if cursor == nil { page.estimate = try await estimates.estimate(bikeID: id, for: .owner) }
                return try JSONResponse.make(page, headers: headers)
            }
        }
    }

    static func bikeID(_ context: AppContext) throws -> String {
        guard let id = context.parameters.get("id"), id.count <= 64 else { throw APIError.bikeNotFound }
        return id
    }
}
