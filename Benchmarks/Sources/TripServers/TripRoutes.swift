import Hummingbird

/// The four routes every server answers, over its service.
func makeRouter(_ service: some TripService) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("health") { _, _ in "ok" }
    router.get("trips") { request, _ -> TripList in
        let minimum = request.uri.queryParameters.get("minimum", as: Int.self) ?? 0
        return TripList(trips: try await service.best(minimum: minimum))
    }
    router.get("trips/:code") { _, context -> TripDTO in
        let code = try context.parameters.require("code")
        guard let trip = try await service.trip(code: code) else { throw HTTPError(.notFound) }
        return trip
    }
    router.put("trips") { request, context -> HTTPResponse.Status in
        try await service.upsert(try await request.decode(as: TripDTO.self, context: context))
        return .noContent
    }
    return router
}
