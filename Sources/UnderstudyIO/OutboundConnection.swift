#if canImport(Glibc)
import Glibc
#endif
@preconcurrency import Dispatch

/// Connections Understudy opens itself (a CONNECT tunnel passed through to its real host, only
/// when the user asks for that): resolve, connect without blocking the loop, then hand the socket
/// to a handler as a `Connection`, like an accepted one.
public enum OutboundConnection {
    /// On `loop`'s thread: resolves `host` (a name or a literal) off the loop, with getaddrinfo on a
    /// global queue, and calls `completion` back on `loop` with the addresses, or the reason there
    /// are none.
    public static func resolve(_ host: String, port: Int, on loop: EventLoop,
                               _ completion: @escaping (Result<[SocketAddress], IOError>) -> Void) {
        precondition(loop.inEventLoop, "OutboundConnection.resolve must be called on the loop thread")
        let box = LoopBound(completion)
        if let literal = try? SocketAddress(host: host, port: port), host != "localhost", !host.isEmpty {
            return loop.execute { box.value(.success([literal])) }
        }
        DispatchQueue.global().async {
            let result = lookUp(host, port: port)
            loop.execute { box.value(result) }
        }
    }

    /// A loop-confined closure carried through another thread: `@unchecked Sendable` because it is
    /// only called back on the loop that made it.
    private final class LoopBound<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }

    static func lookUp(_ host: String, port: Int) -> Result<[SocketAddress], IOError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            let reason = String(cString: gai_strerror(rc))
            return .failure(.invalidAddress("\(host) (\(reason))"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            if let sa = entry.pointee.ai_addr {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(entry.pointee.ai_addrlen)))
                }
                if let address = SocketAddress(storage: storage), !addresses.contains(address) { addresses.append(address) }
            }
            node = entry.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(.invalidAddress("\(host) (no address)")) : .success(addresses)
    }

    /// On `loop`'s thread: connects to `address`. Once connected, `handler` gets the connection
    /// (`connectionActive`) and `connected` runs; otherwise, or past `timeout`, `failed` runs with
    /// the reason. Exactly one of the two runs, on the loop.
    public static func connect(to address: SocketAddress, on loop: EventLoop, timeout: Duration,
                               handler: any ConnectionHandler, connected: @escaping () -> Void,
                               failed: @escaping (IOError) -> Void) {
        precondition(loop.inEventLoop, "OutboundConnection.connect must be called on the loop thread")
        let domain = address.family == .ipv4 ? AF_INET : AF_INET6
        let fd = socket(domain, 1 | 0o4000 | 0o2000000, 0)   // STREAM | NONBLOCK | CLOEXEC
        guard fd >= 0 else { return failed(.systemCall("socket", errno: errno)) }
        let rc = address.withSockAddr { sa, length in Glibc.connect(fd, sa, length) }
        if rc != 0 && errno != EINPROGRESS {
            let code = errno
            closeDescriptor(fd)
            return failed(.systemCall("connect", errno: code))
        }
        let connector = Connector(fd: fd, loop: loop, address: address, handler: handler, connected: connected, failed: failed)
        connector.start(timeout: timeout)
    }
}

/// A socket whose connect is in progress: waits for it to become writable (or fail), then turns
/// into a `Connection`.
private final class Connector: Selectable {
    let fd: Int32
    let loop: EventLoop
    let address: SocketAddress
    var handler: (any ConnectionHandler)?
    let connected: () -> Void
    let failed: (IOError) -> Void
    var timer: Scheduled?
    var done = false

    init(fd: Int32, loop: EventLoop, address: SocketAddress, handler: any ConnectionHandler,
         connected: @escaping () -> Void, failed: @escaping (IOError) -> Void) {
        self.fd = fd; self.loop = loop; self.address = address; self.handler = handler
        self.connected = connected; self.failed = failed
    }

    func start(timeout: Duration) {
        do throws(IOError) {
            try loop.register(fd: fd, events: EpollEvents.output, target: self)
        } catch {
            return finish(.failure(error), registered: false)
        }
        timer = loop.scheduleConfined(after: timeout) { [self] in
            finish(.failure(.systemCall("connect", errno: ETIMEDOUT)), registered: true)
        }
    }

    func ready(_ events: UInt32) {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
        if code == 0 && events & (EpollEvents.error | EpollEvents.hangUp) == 0 {
            finish(.success(()), registered: true)
        } else {
            finish(.failure(.systemCall("connect", errno: code == 0 ? ECONNREFUSED : code)), registered: true)
        }
    }

    func quiesce() { finish(.failure(.systemCall("connect", errno: ECANCELED)), registered: true) }
    func forceClose() { quiesce() }

    private func finish(_ outcome: Result<Void, IOError>, registered: Bool) {
        guard !done else { return }
        done = true
        timer?.cancel()
        timer = nil
        if registered { loop.deregister(fd: fd) }
        let handler = self.handler
        self.handler = nil
        switch outcome {
        case .success:
            var storage = sockaddr_storage()
            address.withSockAddr { sa, length in
                withUnsafeMutableBytes(of: &storage) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(length)))
                }
            }
            let connection = Connection(fd: fd, loop: loop, remote: storage, onClose: nil)
            connected()
            if let handler { connection.activate(handler: handler) }
        case .failure(let error):
            closeDescriptor(fd)
            failed(error)
        }
    }
}
