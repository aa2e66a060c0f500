import Hummingbird
import HummingbirdAuth
import NIOCore

/// The request context: the framework's core storage, this server's body limit, and the caller
/// once an authenticator (`Authentication`) has established it.
public struct AppContext: AuthRequestContext, RemoteAddressRequestContext {
    /// Large enough for a batch of 500 sightings, small enough that a flood of bodies cannot exhaust memory.
    public static let bodyLimit = 256 * 1024

    public var coreContext: CoreRequestContextStorage
    public var identity: Caller?
    public var maxUploadSize: Int { Self.bodyLimit }
    /// The connection's peer: per-client limits (sign-up) count against it, or against what a trusted proxy says.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
