import UnderstudyIO
import UnderstudyTLS

/// TLS as a layer between a transport and a protocol handler: the handler of the transport below
/// (a socket `Connection`, itself a handler's `Transport`) and the `Transport` of the handler above
/// (HTTP, SMTP), which never knows the bytes are encrypted.
///
/// Install it on a connection with `replaceHandler(with:replaying:)` (STARTTLS, CONNECT) or make it
/// the handler of an accepted connection (an HTTPS or SMTPS listener). The protocol handler gets
/// `connectionActive` once the handshake completes, with `security` telling the server name the
/// client asked for. A handshake that fails, exceeds `handshakeTimeout`, or finds `limiter` full is
/// closed without bothering the protocol handler; `onFailure` hears why (for the log).
///
/// Confined to the loop of the transport below, like everything it touches.
public final class TLSTransport: Transport, ConnectionHandler {
    private let engine: TLSConnection
    private var lower: (any Transport)?
    private var upper: (any ConnectionHandler)?
    private var upperActive = false
    private var closing = false
    private var readingPaused = false
    private var delivering = false
    private var handshakeTimer: Scheduled?
    private var holdsHandshakeSlot = false
    private let handshakeTimeout: Duration
    private let limiter: TLSHandshakeLimiter?
    private let onFailure: (@Sendable (TLSTransportFailure) -> Void)?
    private var remote: SocketAddress?

    /// Plaintext handed to the protocol handler per callback.
    static let deliveryChunk = 64 * 1024

    public init(context: TLSContext, upper: any ConnectionHandler, handshakeTimeout: Duration = .seconds(10),
                limiter: TLSHandshakeLimiter? = nil,
                onFailure: (@Sendable (TLSTransportFailure) -> Void)? = nil) throws(TLSError) {
        engine = try TLSConnection(context: context)
        self.upper = upper
        self.handshakeTimeout = handshakeTimeout
        self.limiter = limiter
        self.onFailure = onFailure
    }

    // MARK: ConnectionHandler (events from the transport below)

    public func connectionActive(_ connection: any Transport) {
        lower = connection
        remote = connection.remoteAddress
        if let limiter {
            guard limiter.acquire() else {
                report(.tooManyHandshakes(limit: limiter.limit))
                connection.closeNow()
                return
            }
            holdsHandshakeSlot = true
        }
        // Held strongly: the connection cancels its timers when it closes (see `Connection.schedule`).
        handshakeTimer = connection.schedule(after: handshakeTimeout) { [self] in handshakeTimedOut() }
        flushNetwork()   // a client's hello; nothing for a server
    }

    public func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
        let events = engine.consumeFromNetwork(bytes)
        flushNetwork()
        for event in events {
            switch event {
            case .handshakeCompleted:
                handshakeDone()
                guard let upper, lower?.isOpen == true else { return }
                upperActive = true
                upper.connectionActive(self)
            case .plaintextAvailable:
                deliverPlaintext()
            case .closeNotifyReceived:
                deliverPlaintext()
                if upperActive, let upper { upper.connectionInputClosed(self) } else { connection.close() }
            case .failed(let error):
                let duringHandshake = !upperActive
                handshakeDone()
                report(duringHandshake ? .handshake(error) : .connection(error))
                flushNetwork()   // the alert
                connection.close()
                return
            }
        }
    }

    public func connectionDidDrainWrites(_ connection: any Transport) {
        if upperActive, let upper { upper.connectionDidDrainWrites(self) }
    }

    /// TCP EOF without close_notify: a truncation as TLS sees it, which HTTP/1.1 and SMTP treat as
    /// the peer leaving (as they do without TLS).
    public func connectionInputClosed(_ connection: any Transport) {
        if upperActive, let upper { upper.connectionInputClosed(self) } else { connection.close() }
    }

    public func connectionShouldQuiesce(_ connection: any Transport) {
        if upperActive, let upper { upper.connectionShouldQuiesce(self) } else { connection.close() }
    }

    public func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason) {
        handshakeDone()
        let upper = self.upper
        let wasActive = upperActive
        self.upper = nil
        upperActive = false
        lower = nil
        if wasActive { upper?.connectionClosed(self, reason: reason) }
    }

    // MARK: Transport (what the protocol handler above sees)

    public var eventLoop: EventLoop {
        guard let lower else { preconditionFailure("TLSTransport used before its connection was active") }
        return lower.eventLoop
    }

    public var remoteAddress: SocketAddress {
        guard let address = lower?.remoteAddress ?? remote else {
            preconditionFailure("TLSTransport used before its connection was active")
        }
        return address
    }

    public var isOpen: Bool { !closing && lower?.isOpen == true }

    public var pendingWriteBytes: Int { (lower?.pendingWriteBytes ?? 0) + engine.pendingNetworkByteCount }

    public var isReadingPaused: Bool { readingPaused }

    public var security: TransportSecurity {
        TransportSecurity(isTLS: true, serverName: engine.serverName?.lowercased())
    }

    public func write(_ bytes: [UInt8]) {
        guard isOpen, !bytes.isEmpty else { return }
        do throws(TLSError) {
            try engine.writePlaintext(bytes)
        } catch {
            report(.connection(error))
            lower?.closeNow()
            return
        }
        flushNetwork()
    }

    /// Sends close_notify after what is queued, then closes the connection below.
    public func close() {
        guard let lower, !closing else { return }
        closing = true
        engine.close()
        flushNetwork()
        lower.close()
    }

    public func closeNow() {
        closing = true
        lower?.closeNow()
    }

    public func setWritePolicy(timeout: Duration?, lowWater: Int) {
        lower?.setWritePolicy(timeout: timeout, lowWater: lowWater)   // ciphertext: plaintext plus a little
    }

    public func pauseReading() {
        readingPaused = true
        lower?.pauseReading()
    }

    public func resumeReading() {
        readingPaused = false
        lower?.resumeReading()
        deliverPlaintext()   // what was decrypted before the pause
    }

    @discardableResult
    public func schedule(after delay: Duration, _ task: @escaping () -> Void) -> Scheduled {
        guard let lower else { preconditionFailure("TLSTransport used before its connection was active") }
        return lower.schedule(after: delay) { [self] in
            guard isOpen else { return }
            task()
        }
    }

    public func replaceHandler(with handler: any ConnectionHandler, replaying: [UInt8]) {
        guard isOpen else { return }
        upper = handler
        upperActive = true
        handler.connectionActive(self)
        guard isOpen, !replaying.isEmpty, upper === handler else { return }
        replaying.withUnsafeBytes { handler.connection(self, received: $0) }
    }

    // MARK: Internals

    private func flushNetwork() {
        guard engine.pendingNetworkByteCount > 0 else { return }
        let bytes = engine.drainForNetwork()
        lower?.write(bytes)
    }

    /// Hands decrypted bytes up, a chunk at a time, while the handler reads. Re-entrant calls
    /// (the handler resuming from inside its callback) leave it to the loop already running.
    private func deliverPlaintext() {
        guard upperActive, !delivering else { return }
        delivering = true
        defer { delivering = false }
        while !readingPaused, isOpen, let upper = self.upper {
            let chunk = engine.readPlaintext(maximumCount: Self.deliveryChunk)
            if chunk.isEmpty { return }
            chunk.withUnsafeBytes { upper.connection(self, received: $0) }
        }
    }

    private func handshakeDone() {
        handshakeTimer?.cancel()
        handshakeTimer = nil
        if holdsHandshakeSlot {
            holdsHandshakeSlot = false
            limiter?.release()
        }
    }

    private func handshakeTimedOut() {
        guard !upperActive, engine.isHandshaking, let lower else { return }
        handshakeDone()
        report(.handshakeTimedOut(handshakeTimeout))
        lower.closeNow()
    }

    private func report(_ failure: TLSTransportFailure) {
        guard let onFailure else { return }
        var failure = failure
        failure.peer = remote?.description
        onFailure(failure)
    }
}
