import Hummingbird
import HummingbirdAuth

/// The request context: the framework's core storage, this server's body limit, and the caller
/// once an authenticator (`Authentication`) has established it.
public struct AppContext: AuthRequestContext {
    /// Large enough for a batch of 500 sightings, small enough that a flood of bodies cannot exhaust memory.
    public static let bodyLimit = 256 * 1024

    public var coreContext: CoreRequestContextStorage
    public var identity: Caller?
    public var maxUploadSize: Int { Self.bodyLimit }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
