import Synchronization
import UnderstudyHTTP
import UnderstudyIO

/// An HTTP/1.1 server: `HTTPRequestParser` and `HTTPSerializer` driven by the event loop, answering
/// with an `HTTPResponder` (usually a `FrozenRouter`).
///
/// ```swift
/// let server = HTTPServer(configuration: .init(addresses: [.init(host: "127.0.0.1", port: 8080)]),
///                         responder: router.freeze())
/// let bound = try server.start()
/// _ = TerminationSignal.wait()
/// server.shutdown()
/// ```
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    private let externalGroup: EventLoopGroup?
    private let state = Mutex(State())

    private struct State {
        var group: EventLoopGroup?
        var servers: [TCPServer] = []
    }

    /// - Parameter group: loops to share with other servers (SMTP). When nil, `start()` creates a
    ///   group of `configuration.threads` loops and `shutdown()` stops it.
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, group: EventLoopGroup? = nil) {
        self.configuration = configuration
        self.responder = responder
        self.externalGroup = group
    }

    /// Binds every configured address and starts serving. Returns the bound addresses, in
    /// configuration order (with real ports where 0 was asked).
    @discardableResult
    public func start() throws(IOError) -> [SocketAddress] {
        precondition(state.withLock { $0.group == nil }, "HTTPServer.start() called twice")
        let group: EventLoopGroup
        if let externalGroup {
            group = externalGroup
        } else {
            group = try EventLoopGroup(threads: configuration.threads)
        }
        let configuration = self.configuration
        let responder = self.responder
        var servers: [TCPServer] = []
        var bound: [SocketAddress] = []
        do throws(IOError) {
            for address in configuration.addresses {
                var tcpConfiguration = TCPServer.Configuration(host: address.host, port: address.port,
                                                               maxConnections: configuration.maxConnections)
                if let report = configuration.diagnostics {
                    tcpConfiguration.diagnostics = { @Sendable message in report("HTTP \(address): \(message)") }
                }
                let tcp = TCPServer(
                    configuration: tcpConfiguration,
                    group: group,
                    connectionLimitReached: { connection in
                        let response = HTTPResponse.problem(
                            .serviceUnavailable, error: "too_many_connections",
                            message: "the server has \(configuration.maxConnections) open connections, its limit; "
                                + "retry later or reuse a kept-alive connection")
                        connection.write(HTTPSerializer.serialize(response, requestMethod: .get, requestVersion: .http1_1,
                                                                  keepAlive: false,
                                                                  defaults: configuration.defaultResponseHeaders))
                    },
                    makeHandler: { _ in
                        let http = HTTPConnectionHandler(configuration: configuration, responder: responder)
                        return configuration.connectionLayer?.wrap(http) ?? http
                    })
                bound.append(try tcp.start())
                servers.append(tcp)
            }
        } catch {
            for server in servers { server.stop() }
            if externalGroup == nil { group.shutdownGracefully(timeout: .zero) }
            throw error
        }
        state.withLock { state in
            state.group = group
            state.servers = servers
        }
        return bound
    }

    /// Connections open right now, across all addresses.
    public var connectionCount: Int {
        state.withLock { $0.servers.reduce(0) { $0 + $1.connectionCount } }
    }

    /// Graceful shutdown: stop accepting, let in-flight requests finish (idle kept-alive connections
    /// close at once), close what remains after `configuration.shutdownTimeout`, and join the loop
    /// threads. With a shared group, only stops accepting: shut the group down to finish.
    /// Blocks; call it from outside the event loops (e.g. after `TerminationSignal.wait()`).
    public func shutdown() {
        let (group, servers) = state.withLock { state in
            defer { state.servers = []; state.group = nil }
            return (state.group, state.servers)
        }
        for server in servers { server.stop() }
        if externalGroup == nil, let group {
            group.shutdownGracefully(timeout: configuration.shutdownTimeout)
        }
    }
}
