import UnderstudyIO
import UnderstudySMTP

/// One SMTP connection, confined to its loop.
final class SMTPConnectionHandler: ConnectionHandler {
    var session: SMTPSession
    let delivery: any SMTPDeliveryHandler
    /// The timer behind `deadline`, and when it fires.
    var timer: Scheduled?
    var timerFiresAt: ContinuousClock.Instant?
    /// When the session's current timeout or time limit runs out; nil when it has none.
    var deadline: ContinuousClock.Instant?
    /// When the budgets the session set (a command line's, a message's) end, by budget id.
    var lineLimitEnd: (id: UInt64, end: ContinuousClock.Instant)?
    var messageLimitEnd: (id: UInt64, end: ContinuousClock.Instant)?
    weak var connection: (any Transport)?
    let startTLS: ConnectionLayer?

    init(session: SMTPSession, delivery: any SMTPDeliveryHandler, startTLS: ConnectionLayer? = nil) {
        self.session = session
        self.delivery = delivery
        self.startTLS = startTLS
    }

    /// At the start, or again once STARTTLS's handshake is done (then over the TLS transport, and
    /// the session, already started, greets no more).
    func connectionActive(_ connection: any Transport) {
        self.connection = connection
        if connection.security.isTLS && !session.isTLSActive { session.tlsIsActive() }
        perform(session.start(), on: connection)
    }

    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
        perform(session.receive(bytes), on: connection)
    }

    func connectionInputClosed(_ connection: any Transport) { connection.close() }

    func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason) {
        timer?.cancel()
        timer = nil
        deadline = nil
    }

    func perform(_ actions: [SMTPAction], on connection: any Transport) {
        for action in actions {
            switch action {
            case .send(let bytes):
                connection.write(bytes)
            case .deliver(let envelope):
                let reference = connection.reference
                let box = LoopConfined(self)
                delivery.deliver(envelope) { result in
                    reference.execute { connection in
                        guard let handler = box.handler else { return }
                        handler.perform(handler.session.deliveryCompleted(result), on: connection)
                    }
                }
            case .close:
                timer?.cancel()
                timer = nil
                deadline = nil
                connection.close()
                return
            case .startTLS:
                // The 220 is queued; TLS goes under this handler, which hears from it again (over
                // TLS) once the handshake is done. Until then the TLS layer's own timeout applies.
                timer?.cancel()
                timer = nil
                timerFiresAt = nil
                deadline = nil
                self.connection = nil
                guard let startTLS else { return connection.close() }
                connection.replaceHandler(with: startTLS.wrap(self), replaying: [])
                return
            }
        }
        // While a message is being stored the session queues what the client pipelines behind it;
        // stop reading until it can take more.
        if session.wantsInput {
            if connection.isReadingPaused { connection.resumeReading() }
        } else if !connection.isReadingPaused {
            connection.pauseReading()
        }
        armTimer(on: connection)
    }

    /// The timeout of the session's current state (RFC 5321 4.5.3.2), re-armed after every
    /// read, capped by the session's time limits (a command line's, a message's), which count from
    /// when they first appear and are not moved by input. Timeouts are many seconds long and input
    /// comes much faster, so re-arming only moves `deadline`; the one timer, when it fires early,
    /// sleeps again until the deadline. A timer is replaced only when the new deadline comes before it.
    func armTimer(on connection: any Transport) {
        guard connection.isOpen, let timeout = session.currentTimeout else {
            deadline = nil  // a pending timer then finds nothing to do
            lineLimitEnd = nil
            messageLimitEnd = nil
            return
        }
        let now = ContinuousClock.now
        var due = now + timeout
        if let limit = session.commandLineTimeLimit {
            if lineLimitEnd?.id != limit.id { lineLimitEnd = (limit.id, now + limit.duration) }
            due = min(due, lineLimitEnd!.end)
        } else {
            lineLimitEnd = nil
        }
        if let limit = session.messageTimeLimit {
            if messageLimitEnd?.id != limit.id { messageLimitEnd = (limit.id, now + limit.duration) }
            due = min(due, messageLimitEnd!.end)
        } else {
            messageLimitEnd = nil
        }
        deadline = due
        if let firesAt = timerFiresAt, timer != nil, firesAt <= due { return }
        startTimer(on: connection, at: due)
    }

    private func startTimer(on connection: any Transport, at due: ContinuousClock.Instant) {
        timer?.cancel()
        timerFiresAt = due
        timer = connection.schedule(after: max(.zero, due - ContinuousClock.now)) { [weak self] in
            guard let self, let connection = self.connection, connection.isOpen else { return }
            self.timer = nil
            self.timerFiresAt = nil
            guard let deadline = self.deadline else { return }
            if ContinuousClock.now < deadline {
                self.startTimer(on: connection, at: deadline)
                return
            }
            self.deadline = nil
            self.perform(self.session.timedOut(), on: connection)
        }
    }
}

/// Carries the handler across the store's thread and back: `@unchecked Sendable` because the
/// handler is only read inside `ConnectionReference.execute`, on the connection's own loop.
private final class LoopConfined: @unchecked Sendable {
    weak var handler: SMTPConnectionHandler?
    init(_ handler: SMTPConnectionHandler) { self.handler = handler }
}
