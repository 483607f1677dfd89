/// The protocol side of a connection (HTTP, SMTP). Called only on the connection's loop thread,
/// so implementations are plain classes and are not Sendable.
public protocol ConnectionHandler: AnyObject {
    /// The connection is registered and may be written to.
    func connectionActive(_ connection: Connection)
    /// Bytes arrived. `bytes` is valid only during this call (it is the loop's shared read buffer):
    /// parse or copy it. Writes made during this call are sent together when it returns.
    func connection(_ connection: Connection, received bytes: UnsafeRawBufferPointer)
    /// Everything queued has been sent after the socket had been full (a write did not complete at
    /// once). Use it to resume work paused for backpressure (`pendingWriteBytes`). Default: nothing.
    func connectionDidDrainWrites(_ connection: Connection)
    /// The peer shut down its sending side (read returned 0). Default: `close()` after pending writes.
    func connectionInputClosed(_ connection: Connection)
    /// Graceful shutdown began. Default: `close()` after pending writes.
    func connectionShouldQuiesce(_ connection: Connection)
    /// The connection is closed and its descriptor released. Called exactly once.
    func connectionClosed(_ connection: Connection, reason: ConnectionCloseReason)
}

extension ConnectionHandler {
    public func connectionActive(_ connection: Connection) {}
    public func connectionDidDrainWrites(_ connection: Connection) {}
    public func connectionInputClosed(_ connection: Connection) { connection.close() }
    public func connectionShouldQuiesce(_ connection: Connection) { connection.close() }
    public func connectionClosed(_ connection: Connection, reason: ConnectionCloseReason) {}
}
