/// A Sendable way to reach a connection from another thread: `execute` hops onto the connection's
/// loop and runs the body there if the connection is still open. It does not keep the connection
/// alive.
///
/// ```swift
/// let reference = connection.reference          // on the loop
/// worker.async { let reply = store(mail)         // elsewhere
///     reference.execute { $0.write(reply) } }    // back on the loop
/// ```
public struct ConnectionReference: Sendable {
    public let eventLoop: EventLoop
    private let box: WeakBox

    /// `@unchecked Sendable`: the weak reference is only read on `eventLoop`'s thread.
    private final class WeakBox: @unchecked Sendable {
        weak var connection: Connection?
        init(_ connection: Connection) { self.connection = connection }
    }

    init(_ connection: Connection) {
        eventLoop = connection.eventLoop
        box = WeakBox(connection)
    }

    /// Runs `body` on the connection's loop, unless the connection has closed (or the loop stopped).
    public func execute(_ body: @escaping @Sendable (Connection) -> Void) {
        let box = self.box
        eventLoop.execute {
            guard let connection = box.connection, connection.isOpen else { return }
            body(connection)
        }
    }
}

extension Connection {
    /// A Sendable reference for other threads (see `ConnectionReference`).
    public var reference: ConnectionReference { ConnectionReference(self) }
}
