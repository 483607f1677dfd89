#if canImport(Glibc)
import Glibc
#endif
import UnderstudyHTTP
import UnderstudyHTTPServer
import UnderstudyInbox
import UnderstudyIO
import UnderstudyJSON
import UnderstudyProviders
import UnderstudySMTP
import UnderstudySMTPServer
import UnderstudyStore

/// The running server: event loops, the HTTP listener with every route, and the mail sink.
/// `serve` runs one; live tests start one in-process on port 0.
public final class Application: Sendable {
    public let configuration: Configuration
    let group: EventLoopGroup
    let http: HTTPServer
    let smtp: SMTPServer
    public let inbox: Inbox
    /// Bound addresses, e.g. `127.0.0.1:7080` (the real port when 0 was asked for).
    public let httpAddresses: [String]
    public let smtpAddress: String

    /// Builds every part, binds every listener and starts serving. Errors say what to change.
    public init(configuration: Configuration, clock: @escaping UnixClock = systemUnixClock) throws {
        self.configuration = configuration
        guard let httpAddress = ListenAddress(configuration.http) else {
            throw ConfigurationError.invalid("http", "must be host:port, got '\(configuration.http)'")
        }
        guard let smtpAddress = ListenAddress(configuration.smtp) else {
            throw ConfigurationError.invalid("smtp", "must be host:port, got '\(configuration.smtp)'")
        }
        let store: MessageStore
        do {
            store = try MessageStore(location: configuration.dataPath.map { .file($0) } ?? .temporary,
                                     maxMessages: configuration.mail.maxMessages, recover: IncomingMessage.recover)
        } catch {
            throw StartupError("cannot open the inbox store \(configuration.dataPath ?? "(temporary)"): \(error); choose another file with --data PATH")
        }
        let inbox = Inbox(store: store, clock: { Self.milliseconds() }, report: { StandardOutput.write(2, $0 + "\n") })
        self.inbox = inbox

        var router = Router()
        do {
            try Assembly.registerRoutes(on: &router, configuration: configuration, inbox: inbox, clock: clock)
        } catch {
            store.close()
            throw error
        }

        let group = try EventLoopGroup(threads: configuration.threads ?? EventLoopGroup.coreCount)
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.addresses = [.init(host: httpAddress.host, port: httpAddress.port)]
        serverConfiguration.threads = group.loops.count
        let http = HTTPServer(configuration: serverConfiguration, responder: router.freeze(), group: group)

        var session = SMTPConfiguration(hostname: "understudy.localhost")
        session.maxMessageSize = configuration.mail.maxMessageSize
        session.maxRecipients = configuration.mail.maxRecipients
        session.commandTimeoutBeforeMail = .seconds(configuration.mail.idleTimeoutBeforeMail)
        session.commandLineTimeLimit = .seconds(configuration.mail.commandTimeLimit)
        session.messageTimeLimit = .seconds(configuration.mail.messageTimeLimit)
        if let user = configuration.mail.username, let password = configuration.mail.password {
            session.credentials = SMTPCredentials(username: user, password: password)
        }
        let smtp = SMTPServer(configuration: .init(host: smtpAddress.host, port: smtpAddress.port, session: session,
                                                   maxConnectionsPerAddress: configuration.mail.maxSessionsPerAddress),
                              group: group, delivery: InboxDelivery(inbox: inbox))
        do {
            httpAddresses = try http.start().map(\.description)
        } catch {
            group.shutdownGracefully(timeout: .seconds(1))
            store.close()
            throw StartupError("cannot listen for HTTP on \(configuration.http): \(error); choose another address with --http HOST:PORT (port 0 picks a free one)")
        }
        do {
            self.smtpAddress = try smtp.start().description
        } catch {
            http.shutdown()
            group.shutdownGracefully(timeout: .seconds(1))
            store.close()
            throw StartupError("cannot listen for SMTP on \(configuration.smtp): \(error); choose another address with --smtp HOST:PORT (port 0 picks a free one)")
        }
        self.group = group
        self.http = http
        self.smtp = smtp
    }

    /// Stops accepting, lets in-flight requests and sessions finish, joins the loop threads, and
    /// closes the store (a temporary store is deleted).
    public func shutdown() {
        http.shutdown()
        smtp.shutdown()
        group.shutdownGracefully(timeout: .seconds(5))
        inbox.close()
    }

    static func milliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}

/// A start-up failure with a message that says what to change.
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
    init(_ message: String) { description = message }
}
