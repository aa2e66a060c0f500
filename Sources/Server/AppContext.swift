import Hummingbird

/// The request context: the framework's core storage and this server's body limit.
public struct AppContext: RequestContext {
    /// Large enough for a batch of 500 sightings, small enough that a flood of bodies cannot exhaust memory.
    public static let bodyLimit = 256 * 1024

    public var coreContext: CoreRequestContextStorage
    public var maxUploadSize: Int { Self.bodyLimit }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
