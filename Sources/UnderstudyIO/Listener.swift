#if canImport(Glibc)
import Glibc
#endif
import CShims

/// A listening socket on one loop.
final class Listener: Selectable {
    let fd: Int32
    let loop: EventLoop
    let server: TCPServer   // strong: a pending accept may run after the last outside reference is gone
    private var isOpen = false
    private var closed = false
    private var accepting = true

    init(fd: Int32, loop: EventLoop, server: TCPServer) {
        self.fd = fd; self.loop = loop; self.server = server
    }

    func activate() {
        guard !closed else { return }
        do {
            try loop.register(fd: fd, events: EpollEvents.input, target: self)
            isOpen = true
        } catch {
            closed = true
            closeDescriptor(fd)
        }
    }

    func closeListener() {
        guard !closed else { return }
        closed = true
        if isOpen { loop.deregister(fd: fd) }
        isOpen = false
        closeDescriptor(fd)
    }

    func ready(_ events: UInt32) {
        // Accept a batch, then let the other registrations run.
        for _ in 0..<64 {
            guard isOpen, accepting else { return }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let result: SystemCallResult<Int32>
            do throws(IOError) {
                result = try systemCall("accept4") {
                    CShims_accept4(fd, &storage, &length, 0o4000 | 0o2000000)   // NONBLOCK | CLOEXEC
                }
            } catch {
                switch error.errnoCode {
                case ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: stop accepting for a moment instead of spinning.
                    server.diagnose("accept", "cannot accept connections on port \(server.configuration.port == 0 ? "(any)" : String(server.configuration.port)): \(error); "
                                    + "pausing accepts for 100 ms (raise the descriptor limit with ulimit -n, or lower the load)")
                    pauseAccepting(); return
                default:
                    server.diagnose("accept", "accepting a connection failed: \(error); pausing accepts for 100 ms")
                    pauseAccepting(); return
                }
            }
            guard case .done(let client) = result else { return }
            accepted(client, remote: storage)
        }
    }

    private func pauseAccepting() {
        accepting = false
        try? loop.reregister(fd: fd, events: 0)
        _ = loop.scheduleConfined(after: .milliseconds(100)) { [weak self] in
            guard let self, self.isOpen else { return }
            self.accepting = true
            try? self.loop.reregister(fd: self.fd, events: EpollEvents.input)
        }
    }

    private func accepted(_ fd: Int32, remote: sockaddr_storage) {
        if server.configuration.noDelay {
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let server = self.server
        let count = server.openConnections.wrappingAdd(1, ordering: .relaxed).newValue
        if count > server.configuration.maxConnections {
            server.openConnections.wrappingSubtract(1, ordering: .relaxed)
            server.diagnose("limit", "\(server.configuration.maxConnections) connections are open, the limit: turning new ones away")
            reject(fd, remote: remote, answer: server.connectionLimitReached)
            return
        }
        var peer: PeerAddressKey?
        if server.configuration.maxConnectionsPerAddress < .max {
            let key = PeerAddressKey(storage: remote)
            guard server.admit(key) else {
                server.openConnections.wrappingSubtract(1, ordering: .relaxed)
                server.diagnose("address-limit", "\(server.configuration.maxConnectionsPerAddress) connections are open from one client address, "
                                + "the limit per address: turning more away")
                reject(fd, remote: remote, answer: server.addressLimitReached)
                return
            }
            peer = key
        }
        let connection = Connection(fd: fd, loop: loop, remote: remote, lingerTime: server.configuration.lingerTime) {
            if let peer { server.release(peer) }
            server.openConnections.wrappingSubtract(1, ordering: .relaxed)
        }
        connection.activate(handler: server.makeHandler(connection))
    }

    /// A connection over a limit: `answer` may write a last reply, then it is closed.
    private func reject(_ fd: Int32, remote: sockaddr_storage, answer: (@Sendable (Connection) -> Void)?) {
        let connection = Connection(fd: fd, loop: loop, remote: remote, onClose: nil)
        connection.activate(handler: RejectedConnectionHandler())
        if let answer, connection.isOpen { answer(connection) }
        connection.close()
    }

    func quiesce() { closeListener() }
    func forceClose() { closeListener() }
}

/// Handler of a connection over the cap: ignores input until it is closed.
private final class RejectedConnectionHandler: ConnectionHandler {
    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {}
}
