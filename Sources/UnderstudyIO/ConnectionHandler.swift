/// The protocol side of a connection (HTTP, SMTP), talking to its `Transport`. Called only on the
/// transport's loop thread, so implementations are plain classes and are not Sendable.
public protocol ConnectionHandler: AnyObject {
    /// The transport is ready and may be written to.
    func connectionActive(_ connection: any Transport)
    /// Bytes arrived. `bytes` is valid only during this call (it may be the loop's shared read
    /// buffer): parse or copy it. Writes made during this call are sent together when it returns.
    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer)
    /// Everything queued has been sent after the socket had been full (a write did not complete at
    /// once). Use it to resume work paused for backpressure (`pendingWriteBytes`). Default: nothing.
    func connectionDidDrainWrites(_ connection: any Transport)
    /// The peer shut down its sending side (read returned 0). Default: `close()` after pending writes.
    func connectionInputClosed(_ connection: any Transport)
    /// Graceful shutdown began. Default: `close()` after pending writes.
    func connectionShouldQuiesce(_ connection: any Transport)
    /// The connection is closed and its descriptor released. Called exactly once.
    func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason)
}

extension ConnectionHandler {
    public func connectionActive(_ connection: any Transport) {}
    public func connectionDidDrainWrites(_ connection: any Transport) {}
    public func connectionInputClosed(_ connection: any Transport) { connection.close() }
    public func connectionShouldQuiesce(_ connection: any Transport) { connection.close() }
    public func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason) {}
}
