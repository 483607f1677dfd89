#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection, the `Transport` at the bottom of every stack, confined to its event loop:
/// every method must be called on `eventLoop`'s thread (from a `ConnectionHandler` callback, a
/// connection timer, or `eventLoop.execute`).
public final class Connection: Transport {
    public let eventLoop: EventLoop
    /// What accept returned, decoded only when asked for (nothing on the hot path reads it).
    private let remoteStorage: sockaddr_storage

    private let fd: Int32
    private var handler: (any ConnectionHandler)?
    private let onClose: (() -> Void)?

    /// Bytes waiting to be sent: one reused buffer, `outboundOffset` bytes already sent.
    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    /// The events registered with epoll now (may lag `wantedInterest`: see `pauseReading`).
    private(set) var interest: UInt32 = 0
    private var readingPaused = false
    private var inputClosed = false
    /// Input arrived while paused or closing and was left unread: only then is the input
    /// interest dropped (see `pauseReading`).
    private var inputIgnored = false
    private var closeWhenFlushed = false
    private var inReadCallback = false
    /// A send did not complete at once since the queue was last empty.
    private var wasBlocked = false
    public private(set) var isOpen = true
    /// Closed for its user, the descriptor still open: see `linger`.
    private var lingerTimer: Scheduled?
    /// Ids of the timers `schedule` set that may still be pending (see `schedule`).
    private var scheduledTimers: [UInt64] = []
    private var lingerDiscarded = 0

    /// A peer that takes no bytes for this long while output is pending is closed
    /// (`.writeTimedOut`), dropping what was queued for it. nil: wait forever.
    public var writeTimeout: Duration?
    /// When positive, `connectionDidDrainWrites` is also called each time the unsent bytes fall to
    /// this many or fewer after having been above it: a producer refills at this low-water mark.
    public var writeLowWater = 0
    private var aboveLowWater = false
    private var writeTimer: Scheduled?
    /// When the peer last took bytes, or the queue began waiting (monotonic ns; kept only while a
    /// write timeout is armed).
    private var lastWriteProgress: UInt64 = 0

    /// How long a closed connection keeps reading and discarding what the peer still sends.
    public static let defaultLingerTime: Duration = .seconds(2)
    private let lingerTime: Duration
    /// The most it discards before closing regardless.
    static let lingerBytes = 1 << 20

    init(fd: Int32, loop: EventLoop, remote: sockaddr_storage, lingerTime: Duration = Connection.defaultLingerTime,
         onClose: (() -> Void)?) {
        self.fd = fd
        self.lingerTime = lingerTime
        self.eventLoop = loop
        self.remoteStorage = remote
        self.onClose = onClose
    }

    /// The peer's address.
    public var remoteAddress: SocketAddress {
        SocketAddress(storage: remoteStorage) ?? SocketAddress(family: .ipv4, host: "0.0.0.0", port: 0)
    }

    /// A socket carries no TLS of its own; a layer over it does.
    public var security: TransportSecurity { .none }

    public func replaceHandler(with handler: any ConnectionHandler, replaying: [UInt8]) {
        assertOnLoop()
        guard isOpen else { return }
        self.handler = handler
        handler.connectionActive(self)
        guard isOpen, !replaying.isEmpty, self.handler === handler else { return }
        replaying.withUnsafeBytes { handler.connection(self, received: $0) }
    }

    /// Registers with the loop and tells the handler. On failure the fd is closed.
    func activate(handler: any ConnectionHandler) {
        self.handler = handler
        do throws(IOError) {
            interest = wantedInterest
            try eventLoop.register(fd: fd, events: interest, target: self)
        } catch {
            isOpen = false
            closeDescriptor(fd)
            onClose?()
            self.handler = nil
            handler.connectionClosed(self, reason: .failed(error))
            return
        }
        handler.connectionActive(self)
    }

    // MARK: Writing

    /// Bytes queued but not yet accepted by the kernel (for backpressure decisions).
    public var pendingWriteBytes: Int { outbound.count - outboundOffset }

    /// Queues `bytes` and sends as much as the socket takes now; the rest goes out when the socket
    /// is writable again (EPOLLOUT). Ignored once the connection is closing or closed.
    public func write(_ bytes: [UInt8]) {
        assertOnLoop()
        guard isOpen, !closeWhenFlushed, !bytes.isEmpty else { return }
        if inReadCallback || pendingWriteBytes > 0 {
            if outboundOffset >= 1 << 16 && outboundOffset * 2 >= outbound.count {
                // A producer refilling at the low-water mark never empties the queue: drop what was sent.
                outbound.removeSubrange(0..<outboundOffset)
                outboundOffset = 0
            }
            outbound.append(contentsOf: bytes)
            noteQueued()
            return   // flushed after the read callback, or on EPOLLOUT
        }
        // Nothing queued: send straight from the caller's array, queue only the remainder.
        let attempt = bytes.withUnsafeBytes { raw in
            Result { () throws(IOError) in
                try systemCall("send") { send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
            }
        }
        let sent: Int
        switch attempt {
        case .success(.done(let n)): sent = n
        case .success(.wouldBlock): sent = 0
        case .failure(let error): closeNow(reason: .failed(error)); return
        }
        if sent < bytes.count {
            outbound.append(contentsOf: bytes[sent...])
            wasBlocked = true
            noteQueued()
            armWriteTimer()
            updateInterest()
        }
    }

    public func setWritePolicy(timeout: Duration?, lowWater: Int) {
        writeTimeout = timeout
        writeLowWater = lowWater
    }

    private func noteQueued() {
        if writeLowWater > 0 && pendingWriteBytes > writeLowWater { aboveLowWater = true }
    }

    /// Sends everything queued that the socket takes now.
    private func flush() {
        while pendingWriteBytes > 0 {
            let offset = outboundOffset
            let attempt = outbound.withUnsafeBytes { raw in
                Result { () throws(IOError) in
                    try systemCall("send") { send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL)) }
                }
            }
            switch attempt {
            case .success(.done(let n)):
                outboundOffset += n
                if writeTimer != nil { lastWriteProgress = Monotonic.now() }
                if aboveLowWater && pendingWriteBytes <= writeLowWater {
                    aboveLowWater = false
                    handler?.connectionDidDrainWrites(self)   // may queue more: the loop sends it
                    guard isOpen else { return }
                }
            case .success(.wouldBlock): wasBlocked = true; armWriteTimer(); updateInterest(); return
            case .failure(let error): closeNow(reason: .failed(error)); return
            }
        }
        if pendingWriteBytes == 0 {
            outboundOffset = 0
            if outbound.capacity > 1 << 20 { outbound = [] } else { outbound.removeAll(keepingCapacity: true) }
            if closeWhenFlushed { closeNow(reason: .closedLocally); return }
            updateInterest()
            if wasBlocked {
                wasBlocked = false
                handler?.connectionDidDrainWrites(self)
            }
            return
        }
        updateInterest()
    }

    /// Starts the write timeout's clock when the queue begins waiting for the peer.
    private func armWriteTimer() {
        guard let writeTimeout else { return }
        lastWriteProgress = Monotonic.now()
        guard writeTimer == nil else { return }   // armed: it re-checks progress when it fires
        writeTimer = eventLoop.scheduleConfined(after: writeTimeout) { [self] in writeTimerFired() }   // cancelled at close
    }

    private func writeTimerFired() {
        writeTimer = nil
        guard isOpen, !isLingering, pendingWriteBytes > 0, let writeTimeout else { return }
        let limit = writeTimeout.nanosecondsClamped
        let stalled = Monotonic.now() &- lastWriteProgress
        if stalled >= limit {
            closeNow(reason: .writeTimedOut)
            return
        }
        writeTimer = eventLoop.scheduleConfined(after: .nanoseconds(Int64(clamping: limit - stalled))) { [self] in
            writeTimerFired()
        }
    }

    // MARK: Reading

    /// Stops reading (backpressure): the kernel buffers fill and TCP slows the peer down.
    ///
    /// The epoll interest is dropped lazily, on the first input that arrives while paused: a
    /// session that pauses while its message is stored and resumes on the reply usually gets no
    /// input in between, and then neither call costs a system call.
    public func pauseReading() {
        assertOnLoop()
        readingPaused = true
    }

    public func resumeReading() {
        assertOnLoop()
        readingPaused = false
        inputIgnored = false
        updateInterest()
    }

    public var isReadingPaused: Bool { readingPaused }

    private func readable() {
        if readingPaused || closeWhenFlushed {
            inputIgnored = true  // input we will not read yet: stop being woken for it
            updateInterest()
            return
        }
        let buffer = eventLoop.readBuffer
        // A few reads per wake-up at most, so one busy peer does not starve the others.
        for _ in 0..<4 {
            guard isOpen, !readingPaused, !inputClosed, !closeWhenFlushed else { return }
            let count: Int
            do throws(IOError) {
                switch try systemCall("read", { Glibc.read(fd, buffer.baseAddress, buffer.count) }) {
                case .done(let n): count = n
                case .wouldBlock: return
                }
            } catch {
                closeNow(reason: .failed(error)); return
            }
            if count == 0 {
                inputClosed = true
                updateInterest()
                handler?.connectionInputClosed(self)
                return
            }
            inReadCallback = true
            handler?.connection(self, received: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            inReadCallback = false
            if isOpen { flush() }
            if count < buffer.count { return }
        }
    }

    // MARK: Closing

    /// Closes once everything queued has been sent. Reading stops now.
    public func close() {
        assertOnLoop()
        guard isOpen else { return }
        if pendingWriteBytes == 0 && !inReadCallback {
            closeNow(reason: .closedLocally)
        } else {
            // flush() closes once the queue is empty; reading stops now, the interest lazily.
            closeWhenFlushed = true
        }
    }

    /// Closes immediately, dropping anything not yet sent.
    public func closeNow() {
        assertOnLoop()
        closeNow(reason: .closedLocally)
    }

    func closeNow(reason: ConnectionCloseReason) {
        guard isOpen else { return }
        // Closing after the peer's EOF: the peer ended the conversation.
        let reason = reason == .closedLocally && inputClosed ? .closedByPeer : reason
        isOpen = false
        outbound = []
        outboundOffset = 0
        writeTimer?.cancel()
        writeTimer = nil
        cancelScheduledTimers()
        if reason == .closedLocally && hasUnreadInput() {
            linger()
        } else {
            release()
        }
        let handler = self.handler
        self.handler = nil   // break the connection <-> handler cycle
        handler?.connectionClosed(self, reason: reason)
    }

    /// Input the peer sent that was never read. Closing a socket over it makes the kernel reset
    /// the connection, and a reset makes the peer drop what it had received but not yet read:
    /// a reply written just before the close (an SMTP 221, an HTTP response) would be lost.
    private func hasUnreadInput() -> Bool {
        if inputClosed { return false }
        if inputIgnored { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// A lingering close (as nginx does): send FIN after what was written, then read and discard
    /// until the peer closes too, `lingerTime` passes or `lingerBytes` arrive; then close. The
    /// user sees the connection closed from the start.
    private func linger() {
        _ = shutdown(fd, Int32(SHUT_WR))
        do throws(IOError) {
            try eventLoop.reregister(fd: fd, events: EpollEvents.input | EpollEvents.readHangUp)
        } catch {
            release()   // cannot linger: close now (no linger timer is set yet)
            return
        }
        lingerTimer = eventLoop.scheduleConfined(after: lingerTime) { [self] in finishLingering() }   // cancelled there
    }

    private var isLingering: Bool { lingerTimer != nil }

    /// Reads and drops what arrives while lingering; closes at the peer's EOF or past the bound.
    private func discardLingeringInput() {
        let buffer = eventLoop.readBuffer
        while true {
            let result = try? systemCall("read", { Glibc.read(fd, buffer.baseAddress, buffer.count) })
            switch result {
            case .done(let n)? where n > 0:
                lingerDiscarded += n
                if lingerDiscarded >= Self.lingerBytes { finishLingering(); return }
            case .wouldBlock?: return
            default: finishLingering(); return  // EOF or an error
            }
        }
    }

    private func finishLingering() {
        guard let timer = lingerTimer else { return }
        lingerTimer = nil
        timer.cancel()
        release()
    }

    /// Gives the descriptor back, once: off the loop, closed, and the server told.
    private func release() {
        eventLoop.deregister(fd: fd, closing: true)
        closeDescriptor(fd)
        onClose?()
    }

    // MARK: Timers

    /// Runs `task` on the loop after `delay`, unless the connection has closed by then.
    ///
    /// Timers that may still be pending are cancelled when the connection closes, so `task` may
    /// hold the connection and its handlers strongly: it never outlives them. (A weak reference
    /// would do the same at a price: forming one gives the object a side table, and from then on
    /// every retain and release of it, per request, takes Swift's slow path.)
    @discardableResult
    public func schedule(after delay: Duration, _ task: @escaping () -> Void) -> Scheduled {
        assertOnLoop()
        guard isOpen else { return eventLoop.scheduleConfined(after: delay) {} }   // never runs `task`
        let scheduled = eventLoop.scheduleConfined(after: delay) { [self] in
            guard isOpen else { return }
            task()
        }
        if scheduledTimers.count >= 16 {
            scheduledTimers.removeAll { !eventLoop.hasPendingTimer(id: $0) }   // ran or were cancelled
        }
        scheduledTimers.append(scheduled.id)
        return scheduled
    }

    private func cancelScheduledTimers() {
        for id in scheduledTimers { eventLoop.cancelTimer(id: id) }
        scheduledTimers = []
    }

    // MARK: epoll

    private var wantedInterest: UInt32 {
        var events: UInt32 = 0
        if !inputClosed && !inputIgnored { events |= EpollEvents.input | EpollEvents.readHangUp }
        if pendingWriteBytes > 0 { events |= EpollEvents.output }
        return events
    }

    private func updateInterest() {
        guard isOpen else { return }
        let wanted = wantedInterest
        guard wanted != interest else { return }
        do throws(IOError) {
            try eventLoop.reregister(fd: fd, events: wanted)
            interest = wanted
        } catch {
            closeNow(reason: .failed(error))
        }
    }

    func ready(_ events: UInt32) {
        if isLingering {
            discardLingeringInput()
            return
        }
        if events & (EpollEvents.input | EpollEvents.readHangUp | EpollEvents.hangUp | EpollEvents.error) != 0 {
            readable()
        }
        if isOpen, events & EpollEvents.output != 0 { flush() }
        guard isOpen else { return }
        if events & EpollEvents.error != 0 {
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            closeNow(reason: code == 0 ? .closedByPeer : .failed(.systemCall("socket", errno: code)))
        } else if events & EpollEvents.hangUp != 0 {
            closeNow(reason: .closedByPeer)
        }
    }

    func quiesce() {
        guard isOpen else { return }  // a lingering connection closes by itself, soon
        if let handler { handler.connectionShouldQuiesce(self) } else { close() }
    }

    func forceClose() {
        if isLingering { finishLingering() } else { closeNow(reason: .shutdownDeadline) }
    }

    @inline(__always)
    private func assertOnLoop() {
        assert(eventLoop.inEventLoop, "Connection used off its event loop thread")
    }
}

@available(*, unavailable, message: "A Connection is confined to its event loop: hop with eventLoop.execute")
extension Connection: Sendable {}

extension Connection: Selectable {}
