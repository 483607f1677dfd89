/// What a protocol handler (HTTP, SMTP) talks to: a socket `Connection`, or a layer over one that
/// transforms its bytes (TLS). Handlers never know which, so a layer can be put between a socket
/// and a protocol, and a connection can change protocol mid-stream (plain HTTP -> CONNECT tunnel ->
/// TLS -> HTTP; SMTP -> STARTTLS -> SMTP), as swift-nio's channel pipeline allows.
///
/// Confined to `eventLoop`: every member is used on its thread only.
public protocol Transport: AnyObject {
    var eventLoop: EventLoop { get }
    /// The peer's address (of the socket underneath).
    var remoteAddress: SocketAddress { get }
    var isOpen: Bool { get }
    /// Bytes written and not yet accepted by the kernel (or by the layer below), for backpressure.
    var pendingWriteBytes: Int { get }
    var isReadingPaused: Bool { get }
    /// Facts about how the peer reached us: TLS and its server name, once known.
    var security: TransportSecurity { get }

    /// Queues `bytes` for the peer. Ignored once closing or closed.
    func write(_ bytes: [UInt8])
    /// Closes once everything queued is sent. Reading stops now.
    func close()
    /// Closes at once, dropping anything not yet sent.
    func closeNow()
    /// A peer that takes no bytes for `timeout` while output is pending is closed, dropping what was
    /// queued for it (nil: wait forever). With a positive `lowWater`, `connectionDidDrainWrites` is
    /// also called each time the unsent bytes fall to that many after being above it, so a producer
    /// can refill there. A layer applies both to the socket underneath.
    func setWritePolicy(timeout: Duration?, lowWater: Int)
    /// Stops delivering input (backpressure), until `resumeReading`.
    func pauseReading()
    func resumeReading()
    /// Runs `task` on the loop after `delay`, unless the transport has closed by then.
    @discardableResult
    func schedule(after delay: Duration, _ task: @escaping () -> Void) -> Scheduled
    /// Gives the transport to `handler` from now on: the current handler gets no more callbacks,
    /// the new one gets `connectionActive`, then `replaying` (input the old handler had read past
    /// its own protocol, such as a TLS hello pipelined after a CONNECT) as received bytes.
    func replaceHandler(with handler: any ConnectionHandler, replaying: [UInt8])
}

extension Transport {
    /// A Sendable reference for other threads (see `ConnectionReference`).
    public var reference: ConnectionReference { ConnectionReference(self) }
}
