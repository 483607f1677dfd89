#if canImport(Glibc)
import Glibc
#endif
import UnderstudyGrants
import UnderstudyHTTP
import UnderstudyHTTPServer
import UnderstudyInbox
import UnderstudyIO
import UnderstudyJSON
import UnderstudyProviders
import UnderstudySMTP
import UnderstudySMTPServer
import UnderstudyStore
import UnderstudyCA
import UnderstudyTLS
import UnderstudyTLSTransport

/// The running server: event loops, the HTTP listener with every route, and the mail sink.
/// `serve` runs one; live tests start one in-process on port 0.
public final class Application: Sendable {
    public let configuration: Configuration
    let group: EventLoopGroup
    /// Runs SQLite reads, searches and RSA signing, so loop threads only parse, route and write.
    let workers: WorkerPool
    let http: HTTPServer
    /// The provider hosts over TLS (nil when `https` is off).
    let https: HTTPServer?
    let smtp: SMTPServer
    /// The local CA the HTTPS certificates come from (nil when nothing uses TLS).
    public let certificateAuthority: CertificateAuthority?
    public let inbox: Inbox
    /// The web sign-in flows' codes, tokens and consents (`<data>-grants.sqlite`, else temporary).
    public let grants: GrantStore
    /// Bound addresses, e.g. `127.0.0.1:7080` (the real port when 0 was asked for).
    public let httpAddresses: [String]
    public let smtpAddress: String
    /// The bound HTTPS address, when HTTPS is on.
    public let httpsAddress: String?
    /// The bound SMTPS address, when implicit-TLS SMTP is on.
    public let smtpsAddress: String?
    let smtpsServer: SMTPServer?
    /// One line per HTTP request and SMTP message (nil with `--quiet`).
    let requestLog: RequestLog?

    /// Builds every part, binds every listener and starts serving. Errors say what to change.
    /// `requestLogSink` gets the request log's lines (standard error by default).
    public init(configuration: Configuration, clock: @escaping UnixClock = systemUnixClock,
                requestLogSink: (@Sendable ([UInt8]) -> Void)? = nil) throws {
        self.configuration = configuration
        let requestLog = configuration.log.quiet ? nil
            : RequestLog(format: configuration.log.format, sink: requestLogSink ?? { RequestLog.writeStandardError($0) })
        self.requestLog = requestLog
        guard let httpAddress = ListenAddress(configuration.http) else {
            throw ConfigurationError.invalid("http", "must be host:port, got '\(configuration.http)'")
        }
        guard let smtpAddress = ListenAddress(configuration.smtp) else {
            throw ConfigurationError.invalid("smtp", "must be host:port, got '\(configuration.smtp)'")
        }
        try Self.checkExposure(configuration)
        var httpsAddress: ListenAddress?
        if let https = configuration.https {
            guard let address = ListenAddress(https) else {
                throw ConfigurationError.invalid("https", "must be host:port, got '\(https)'")
            }
            httpsAddress = address
        }
        let smtpsAddress = try configuration.smtps.map { text in
            guard let address = ListenAddress(text) else { throw ConfigurationError.invalid("smtps", "must be host:port, got '\(text)'") }
            return address
        }
        let usesTLS = httpsAddress != nil || smtpsAddress != nil || configuration.mail.startTLS
        let authority = usesTLS ? try Self.openAuthority(configuration) : nil
        self.certificateAuthority = authority
        let store: MessageStore
        do {
            store = try MessageStore(location: configuration.dataPath.map { .file($0) } ?? .temporary,
                                     maxMessages: configuration.mail.maxMessages, recover: IncomingMessage.recover)
        } catch {
            throw StartupError("cannot open the inbox store \(configuration.dataPath ?? "(temporary)"): \(error); choose another file with --data PATH")
        }
        let inbox = Inbox(store: store, clock: { Self.milliseconds() }, report: { StandardOutput.write(2, $0 + "\n") })
        self.inbox = inbox
        let grants: GrantStore
        do {
            grants = try GrantStore(location: configuration.dataPath.map { .file($0 + "-grants.sqlite") } ?? .temporary)
        } catch {
            store.close()
            throw StartupError("cannot open the sign-in grants store \(configuration.dataPath.map { $0 + "-grants.sqlite" } ?? "(temporary)"): \(error); choose another file with --data PATH")
        }
        self.grants = grants

        var router = Router()
        let faults = Assembly.faultBoard(configuration, now: clock())
        let outbound = OutboundLoops()
        let listening = ListenInfo()
        let providers: ProviderRoutes
        do {
            providers = try Assembly.registerRoutes(on: &router, configuration: configuration, inbox: inbox, grants: grants,
                                                    faults: faults, loops: outbound, clock: clock, listening: listening)
        } catch {
            grants.close()
            store.close()
            throw error
        }

        let group = try EventLoopGroup(threads: configuration.threads ?? EventLoopGroup.coreCount)
        outbound.set(group)
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.addresses = [.init(host: httpAddress.host, port: httpAddress.port)]
        serverConfiguration.threads = group.loops.count
        let workers = WorkerPool(threads: max(2, group.loops.count))
        serverConfiguration.workers = workers
        if let requestLog { serverConfiguration.requestLog = { requestLog.http($0) } }
        let diagnostics: @Sendable (String) -> Void = { Logger(output: StandardOutput()).warning($0) }
        serverConfiguration.diagnostics = diagnostics
        let responder = RequestGate(next: VirtualHosts(next: FaultInjector(board: faults, keys: providers.keys, clock: clock,
                                                                          next: router.freeze())),
                                    hosts: HostAllowList(allowHosts: configuration.server.allowHosts,
                                                         publicURL: configuration.normalizedPublicURL,
                                                         listenHosts: [httpAddress.host] + (httpsAddress.map { [$0.host] } ?? [])),
                                    apiToken: configuration.server.apiToken)
        let tlsLayer = try authority.map { try Self.tlsLayer($0) }
        serverConfiguration.connect = ConnectPolicy(tls: tlsLayer, passThrough: configuration.proxyPassthrough).decide
        let http = HTTPServer(configuration: serverConfiguration, responder: responder, group: group)
        var https: HTTPServer?
        if let httpsAddress, let tlsLayer {
            var tls = serverConfiguration
            tls.addresses = [.init(host: httpsAddress.host, port: httpsAddress.port)]
            tls.connectionLayer = tlsLayer
            tls.connect = nil
            https = HTTPServer(configuration: tls, responder: responder, group: group)
        }

        var session = SMTPConfiguration(hostname: "understudy.localhost")
        session.maxMessageSize = configuration.mail.maxMessageSize
        session.maxRecipients = configuration.mail.maxRecipients
        session.commandTimeoutBeforeMail = .seconds(configuration.mail.idleTimeoutBeforeMail)
        session.commandLineTimeLimit = .seconds(configuration.mail.commandTimeLimit)
        session.messageTimeLimit = .seconds(configuration.mail.messageTimeLimit)
        if let user = configuration.mail.username, let password = configuration.mail.password {
            session.credentials = SMTPCredentials(username: user, password: password)
        }
        session.offersTLS = configuration.mail.startTLS && tlsLayer != nil
        session.requireTLS = configuration.mail.requireTLS
        var smtpConfiguration = SMTPServerConfiguration(host: smtpAddress.host, port: smtpAddress.port, session: session,
                                                        maxConnectionsPerAddress: configuration.mail.maxSessionsPerAddress)
        smtpConfiguration.startTLS = session.offersTLS ? tlsLayer : nil
        smtpConfiguration.diagnostics = diagnostics
        let delivery = InboxDelivery(inbox: inbox, log: requestLog)
        let smtp = SMTPServer(configuration: smtpConfiguration, group: group, delivery: delivery)
        var smtps: SMTPServer?
        if let smtpsAddress, let tlsLayer {
            var implicit = smtpConfiguration
            implicit.host = smtpsAddress.host
            implicit.port = smtpsAddress.port
            implicit.session.offersTLS = false
            implicit.startTLS = nil
            implicit.connectionLayer = tlsLayer
            smtps = SMTPServer(configuration: implicit, group: group, delivery: delivery)
        }
        // Listeners start in order; if one cannot, what already started is stopped, newest first.
        var started: [@Sendable () -> Void] = []
        func abandon(_ message: String) -> StartupError {
            for stop in started.reversed() { stop() }
            group.shutdownGracefully(timeout: .seconds(1))
            workers.shutdown()
            store.close()
            grants.close()
            return StartupError(message)
        }
        func retry(_ flag: String) -> String { "choose another address with \(flag) HOST:PORT (port 0 picks a free one)" }
        do { httpAddresses = try http.start().map(\.description) } catch {
            throw abandon("cannot listen for HTTP on \(configuration.http): \(error); \(retry("--http"))")
        }
        started.append(http.shutdown)
        do { self.httpsAddress = try https?.start().first?.description } catch {
            throw abandon("cannot listen for HTTPS on \(configuration.https ?? ""): \(error); \(retry("--https")), or turn HTTPS off with --https null")
        }
        if let https { started.append(https.shutdown) }
        do { self.smtpAddress = try smtp.start().description } catch {
            throw abandon("cannot listen for SMTP on \(configuration.smtp): \(error); \(retry("--smtp"))")
        }
        started.append(smtp.shutdown)
        do { self.smtpsAddress = try smtps?.start().description } catch {
            throw abandon("cannot listen for SMTPS on \(configuration.smtps ?? ""): \(error); \(retry("--smtps"))")
        }
        listening.set(ListenInfo.Addresses(http: httpAddresses, https: self.httpsAddress, smtp: self.smtpAddress,
                                           smtps: self.smtpsAddress, caCertificate: authority?.certificatePath))
        self.group = group
        self.workers = workers
        self.http = http
        self.https = https
        self.smtp = smtp
        self.smtpsServer = smtps
    }

    /// Listen addresses beyond loopback (`0.0.0.0`, a LAN address), which expose the inbox and the
    /// mint API to the network.
    static func remoteListeners(_ configuration: Configuration) -> [String] {
        [("http", configuration.http), ("https", configuration.https), ("smtp", configuration.smtp),
         ("smtps", configuration.smtps)].compactMap { name, text in
            guard let text, let address = ListenAddress(text), !ServerSettings.isLoopback(listenHost: address.host) else { return nil }
            return "\(name) \(address)"
        }
    }

    /// Refuses a listener beyond loopback unless an API token guards `/api` or `--allow-remote` says
    /// the exposure is meant.
    static func checkExposure(_ configuration: Configuration) throws {
        let remote = remoteListeners(configuration)
        guard !remote.isEmpty, configuration.server.apiToken == nil, !configuration.server.allowRemote else { return }
        throw StartupError("refusing to listen beyond loopback (\(remote.joined(separator: ", "))) with an unauthenticated "
            + "inbox and mint API: set an API token with --api-token TOKEN (UNDERSTUDY_SERVER_API_TOKEN), "
            + "or pass --allow-remote if the network is trusted, or listen on 127.0.0.1")
    }

    /// Stops accepting, lets in-flight requests and sessions finish, joins the loop threads, and
    /// closes the store (a temporary store is deleted).
    public func shutdown() {
        https?.shutdown()
        http.shutdown()
        smtp.shutdown()
        smtpsServer?.shutdown()
        group.shutdownGracefully(timeout: .seconds(5))
        workers.shutdown()
        inbox.close()
        grants.close()
        requestLog?.flush()
    }

    /// The CA in `--ca DIR`, else in the user's data directory, made there on first use.
    static func openAuthority(_ configuration: Configuration) throws -> CertificateAuthority {
        guard let directory = configuration.caDirectory else {
            throw StartupError("no folder for the local CA: neither XDG_DATA_HOME nor HOME is set; name one with --ca DIR, "
                + "or turn TLS off (--https null --mail-start-tls false)")
        }
        do {
            return try CertificateAuthority(directory: directory)
        } catch {
            throw StartupError("cannot open the local CA: \(error)")
        }
    }

    /// TLS under every HTTPS connection: leaves from the CA chosen by the client's server name, a
    /// 10 s handshake timeout, at most 256 handshakes at once, failures logged with the peer.
    static func tlsLayer(_ authority: CertificateAuthority) throws -> ConnectionLayer {
        let context: TLSContext
        do {
            context = try TLSContext(configuration: authority.serverConfiguration())
        } catch {
            throw StartupError("cannot set up TLS: \(error)")
        }
        let limiter = TLSHandshakeLimiter(limit: 256)
        return ConnectionLayer { upper in
            do {
                return try TLSTransport(context: context, upper: upper, handshakeTimeout: .seconds(10), limiter: limiter,
                                        onFailure: { failure in Logger(output: StandardOutput()).warning(failure.description) })
            } catch {
                Logger(output: StandardOutput()).error("TLS: cannot start a connection: \(error)")
                return RefusedConnection()
            }
        }
    }

    static func milliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}

/// What a connection gets when its TLS layer could not be made: closed at once.
private final class RefusedConnection: ConnectionHandler {
    func connectionActive(_ connection: any Transport) { connection.closeNow() }
    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {}
}

/// A start-up failure with a message that says what to change.
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
    init(_ message: String) { description = message }
}
