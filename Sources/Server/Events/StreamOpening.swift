import Hummingbird

/// Opens an event stream in a child task: the middleware after this one, the authenticators' session read and
/// the route's first reads run there, and their async frames go when it ends, before the stream is written.
///
/// Swift's task allocator keeps a task's slabs at the depth of its deepest chain of frames until the task ends, and
/// the connection's task writes an open stream for hours (#36: our chain kept 26–33 KB a stream against the bare
/// route's 19.4). Other requests run as before: a child task costs them time and buys them nothing.
struct StreamOpening: RouterMiddleware {
    typealias Context = AppContext

    func handle(_ request: Request, context: AppContext, next: (Request, AppContext) async throws -> Response) async throws -> Response {
        guard request.method == .get, request.uri.path == EventRoutes.path else { return try await next(request, context) }
        return try await withoutActuallyEscaping(next) { next in
            // The child ends before `withoutActuallyEscaping` returns and calls `next` once, as the chain would.
            let chain = Chain(next: next)
            return try await inChildTask { try await chain.next(request, context) }
        }
    }

    private struct Chain: @unchecked Sendable {
        let next: (Request, AppContext) async throws -> Response
    }
}
