import UnderstudyIO
import UnderstudySMTP

public struct SMTPServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var session: SMTPConfiguration
    /// Concurrent sessions; beyond it a client gets `421 4.7.0` and is disconnected.
    public var maxConnections: Int
    /// Concurrent sessions from one client address; beyond it the client gets `421 4.7.0 Too many
    /// connections from your address` and is disconnected, so one client cannot take every slot.
    public var maxConnectionsPerAddress: Int
    /// What STARTTLS puts under a session (set it with `session.offersTLS`). Nil: no STARTTLS.
    public var startTLS: ConnectionLayer?
    /// Under every connection from its start: implicit TLS (SMTPS, RFC 8314). Nil: plain SMTP.
    public var connectionLayer: ConnectionLayer?
    /// Told of failed accepts and sessions turned away at a limit (rate-limited).
    public var diagnostics: (@Sendable (String) -> Void)? = nil

    public init(host: String = "127.0.0.1", port: Int = 0,
                session: SMTPConfiguration = SMTPConfiguration(hostname: "understudy.localhost"), maxConnections: Int = 256,
                maxConnectionsPerAddress: Int = 32) {
        self.host = host; self.port = port; self.session = session; self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
    }
}
