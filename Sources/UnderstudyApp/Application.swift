import UnderstudyHTTP
import UnderstudyHTTPServer
import UnderstudyIO
import UnderstudyJSON
import UnderstudyProviders

/// The running server: event loops, the HTTP listener with every route, and the mail sink.
/// `serve` runs one; live tests start one in-process on port 0.
public final class Application: Sendable {
    public let configuration: Configuration
    let group: EventLoopGroup
    let http: HTTPServer
    /// Bound addresses, e.g. `127.0.0.1:7080` (the real port when 0 was asked for).
    public let httpAddresses: [String]

    /// Builds every part, binds every listener and starts serving. Errors say what to change.
    public init(configuration: Configuration, clock: @escaping UnixClock = systemUnixClock) throws {
        self.configuration = configuration
        guard let httpAddress = ListenAddress(configuration.http) else {
            throw ConfigurationError.invalid("http", "must be host:port, got '\(configuration.http)'")
        }
        var router = Router()
        try Assembly.registerRoutes(on: &router, configuration: configuration, clock: clock)

        let group = try EventLoopGroup(threads: configuration.threads ?? EventLoopGroup.coreCount)
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.addresses = [.init(host: httpAddress.host, port: httpAddress.port)]
        serverConfiguration.threads = group.loops.count
        let http = HTTPServer(configuration: serverConfiguration, responder: router.freeze(), group: group)
        do {
            httpAddresses = try http.start().map(\.description)
        } catch {
            group.shutdownGracefully(timeout: .seconds(1))
            throw StartupError("cannot listen for HTTP on \(configuration.http): \(error); choose another address with --http HOST:PORT (port 0 picks a free one)")
        }
        self.group = group
        self.http = http
    }

    /// Stops accepting, lets in-flight requests finish, and joins the loop threads.
    public func shutdown() {
        http.shutdown()
        group.shutdownGracefully(timeout: .seconds(5))
    }
}

/// A start-up failure with a message that says what to change.
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
    init(_ message: String) { description = message }
}
