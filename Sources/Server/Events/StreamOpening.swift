import Hummingbird

/// The application's responder: opens an event stream in a task of its own (`inChildTask`), where the router, the
/// middleware, the authenticators' session read and the route's first reads run; their async frames go when it ends,
/// before the stream is written. Other requests go to the router as before: a task costs them time and buys nothing.
///
/// Swift's task allocator keeps a task's slabs at the depth of its deepest chain of frames until the task ends, and
/// the connection's task writes an open stream for hours (#36: our chain kept 26–33 KB a stream against the bare
/// route's 19.4). It wraps the router rather than being its first middleware: the router's frames and a
/// middleware's in the connection's task were another 2 KB a stream (heaptrack, 2 000 streams).
struct StreamOpening: HTTPResponder {
    let router: RouterResponder<AppContext>

    @Sendable func respond(to request: Request, context: AppContext) async throws -> Response {
        guard request.method == .get, request.uri.path == EventRoutes.path else { return try await router.respond(to: request, context: context) }
        let router = self.router
        return try await inChildTask { try await router.respond(to: request, context: context) }
    }
}
