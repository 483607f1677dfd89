#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A TCP server: one listening socket per event loop (SO_REUSEPORT, so every core accepts), each
/// accepted connection confined to the loop that accepted it.
public final class TCPServer: Sendable {
    public struct Configuration: Sendable {
        /// IPv4/IPv6 literal, "localhost" (127.0.0.1) or a wildcard ("0.0.0.0", "::").
        public var host: String
        /// 0 picks a free port; `start()` reports it.
        public var port: Int
        /// Open connections across all loops; beyond it `connectionLimitReached` answers and the
        /// connection is closed.
        public var maxConnections: Int
        public var backlog: Int
        public var noDelay: Bool
        /// Open connections from one client IP address; beyond it `addressLimitReached` answers and
        /// the connection is closed. Default: no limit but `maxConnections`.
        public var maxConnectionsPerAddress: Int
        /// How long a connection closed over unread input keeps discarding it (see `Connection`).
        public var lingerTime: Duration
        /// Told why accepting failed or a connection was turned away at a limit, at most once per
        /// `diagnosticInterval` for each kind, so an overload cannot flood the log.
        public var diagnostics: (@Sendable (String) -> Void)? = nil

        public init(host: String = "127.0.0.1", port: Int = 0, maxConnections: Int = 10_000,
                    backlog: Int = 1024, noDelay: Bool = true, maxConnectionsPerAddress: Int = .max,
                    lingerTime: Duration = Connection.defaultLingerTime) {
            self.host = host; self.port = port; self.maxConnections = maxConnections
            self.backlog = backlog; self.noDelay = noDelay
            self.maxConnectionsPerAddress = maxConnectionsPerAddress
            self.lingerTime = lingerTime
        }
    }

    public let configuration: Configuration
    public let group: EventLoopGroup
    let makeHandler: @Sendable (Connection) -> any ConnectionHandler
    let connectionLimitReached: (@Sendable (Connection) -> Void)?
    let addressLimitReached: (@Sendable (Connection) -> Void)?
    let openConnections = Atomic<Int>(0)
    /// When each kind of diagnostic was last reported (monotonic ns), for rate limiting.
    private let lastDiagnostic = Mutex<[String: UInt64]>([:])
    static let diagnosticInterval: UInt64 = 10_000_000_000
    /// Open connections per client address, kept only when `maxConnectionsPerAddress` is set.
    let connectionsByAddress = Mutex<[PeerAddressKey: Int]>([:])
    private let listeners = Mutex<[ListenerRef]>([])
    private let boundAddress = Mutex<SocketAddress?>(nil)

    /// - Parameters:
    ///   - makeHandler: called on the accepting loop for every connection within the cap.
    ///   - connectionLimitReached: called on the loop for a connection over the cap; it may write a
    ///     last answer (SMTP "421"), after which the connection is closed once that is sent.
    ///   - addressLimitReached: the same for a connection over `maxConnectionsPerAddress`.
    public init(configuration: Configuration, group: EventLoopGroup,
                connectionLimitReached: (@Sendable (Connection) -> Void)? = nil,
                addressLimitReached: (@Sendable (Connection) -> Void)? = nil,
                makeHandler: @escaping @Sendable (Connection) -> any ConnectionHandler) {
        self.configuration = configuration
        self.group = group
        self.makeHandler = makeHandler
        self.connectionLimitReached = connectionLimitReached
        self.addressLimitReached = addressLimitReached
    }

    /// Reports `message` unless a diagnostic of the same `kind` was reported in the last interval.
    func diagnose(_ kind: String, _ message: @autoclosure () -> String) {
        guard let diagnostics = configuration.diagnostics else { return }
        let now = Monotonic.now()
        let due = lastDiagnostic.withLock { last -> Bool in
            if let then = last[kind], now &- then < Self.diagnosticInterval { return false }
            last[kind] = now
            return true
        }
        if due { diagnostics(message()) }
    }

    /// Counts a connection from `key`; false (counting nothing) when that address is at its limit.
    func admit(_ key: PeerAddressKey) -> Bool {
        let limit = configuration.maxConnectionsPerAddress
        return connectionsByAddress.withLock { counts in
            let open = counts[key, default: 0]
            guard open < limit else { return false }
            counts[key] = open + 1
            return true
        }
    }

    func release(_ key: PeerAddressKey) {
        connectionsByAddress.withLock { counts in
            if let open = counts[key], open > 1 { counts[key] = open - 1 } else { counts[key] = nil }
        }
    }

    /// Connections currently open (accepted within the cap and not yet closed).
    public var connectionCount: Int { openConnections.load(ordering: .relaxed) }

    /// The bound address once started (with the real port when 0 was asked).
    public var localAddress: SocketAddress? { boundAddress.withLock { $0 } }

    /// Binds and listens on every loop, then starts accepting. Returns the bound address.
    @discardableResult
    public func start() throws(IOError) -> SocketAddress {
        var address = try SocketAddress(host: configuration.host, port: configuration.port)
        var fds: [Int32] = []
        do throws(IOError) {
            if address.port != 0 {
                // SO_REUSEPORT would let us share a port another process (say, a second understudy)
                // already listens on, silently splitting its traffic: a plain bind first refuses that.
                closeDescriptor(try TCPServer.listen(on: address, backlog: 1, reusePort: false))
            }
            for _ in group.loops {
                let fd = try TCPServer.listen(on: address, backlog: configuration.backlog)
                fds.append(fd)
                if address.port == 0, let actual = SocketAddress.local(of: fd) {
                    address = address.withPort(actual.port)   // the other loops bind the same port
                }
            }
        } catch {
            for fd in fds { closeDescriptor(fd) }
            throw error
        }
        boundAddress.withLock { $0 = address }
        var refs: [ListenerRef] = []
        for (loop, fd) in zip(group.loops, fds) {
            let ref = ListenerRef(Listener(fd: fd, loop: loop, server: self))
            refs.append(ref)
            loop.execute { ref.listener.activate() }
        }
        listeners.withLock { $0 = refs }
        return address
    }

    /// Stops accepting (open connections continue). Returns at once; the sockets close on their loops.
    public func stop() {
        let refs = listeners.withLock { refs in defer { refs = [] }; return refs }
        for ref in refs { ref.listener.loop.execute { ref.listener.closeListener() } }
    }

    private static func listen(on address: SocketAddress, backlog: Int, reusePort: Bool = true) throws(IOError) -> Int32 {
        let domain = address.family == .ipv4 ? AF_INET : AF_INET6
        let fd = try systemCallNonBlocking("socket") { socket(domain, 1 | 0o4000 | 0o2000000, 0) } // STREAM|NONBLOCK|CLOEXEC
        do throws(IOError) {
            var one: Int32 = 1
            let size = socklen_t(MemoryLayout<Int32>.size)
            try systemCallNonBlocking("setsockopt(SO_REUSEADDR)") { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, size) }
            if reusePort {
                try systemCallNonBlocking("setsockopt(SO_REUSEPORT)") { setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, size) }
            }
            if address.family == .ipv6 {
                // "::" then means IPv6 only, so "0.0.0.0" can be bound alongside it.
                try systemCallNonBlocking("setsockopt(IPV6_V6ONLY)") { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, size) }
            }
            let bound = address.withSockAddr { (sa, len) in bind(fd, sa, len) }
            if bound != 0 { throw IOError.systemCall("bind", errno: errno) }
            try systemCallNonBlocking("listen") { Glibc.listen(fd, Int32(clamping: backlog)) }
        } catch {
            closeDescriptor(fd)
            throw error
        }
        return fd
    }
}
