import UnderstudyIO
import UnderstudySMTP

/// The SMTP sink on the event loops: each connection drives a pure `SMTPSession`.
/// No reverse DNS lookups: the peer address is used as it is.
public final class SMTPServer: Sendable {
    public let configuration: SMTPServerConfiguration
    let tcp: TCPServer

    public init(configuration: SMTPServerConfiguration, group: EventLoopGroup, delivery: any SMTPDeliveryHandler) {
        self.configuration = configuration
        let session = configuration.session
        let busy = Array("421 4.7.0 \(session.hostname) too many concurrent sessions, try again later\r\n".utf8)
        let crowded = Array("421 4.7.0 \(session.hostname) Too many connections from your address, try again later\r\n".utf8)
        var tcpConfiguration = TCPServer.Configuration(host: configuration.host, port: configuration.port,
                                                       maxConnections: configuration.maxConnections,
                                                       maxConnectionsPerAddress: configuration.maxConnectionsPerAddress)
        let name = configuration.connectionLayer == nil ? "SMTP" : "SMTPS"
        if let report = configuration.diagnostics {
            let port = configuration.port
            tcpConfiguration.diagnostics = { @Sendable message in report("\(name) port \(port): \(message)") }
        }
        tcp = TCPServer(
            configuration: tcpConfiguration,
            group: group,
            connectionLimitReached: { connection in connection.write(busy) },
            addressLimitReached: { connection in connection.write(crowded) },
            makeHandler: { _ in
                let smtp = SMTPConnectionHandler(session: SMTPSession(configuration: session), delivery: delivery,
                                                 startTLS: configuration.startTLS)
                return configuration.connectionLayer?.wrap(smtp) ?? smtp
            })
    }

    /// Binds and starts accepting; returns the bound address (the real port when 0 was asked).
    public func start() throws(IOError) -> SocketAddress { try tcp.start() }

    public var connectionCount: Int { tcp.connectionCount }

    /// Stops accepting; open sessions are asked to finish by the loops' graceful shutdown.
    public func shutdown() { tcp.stop() }
}
