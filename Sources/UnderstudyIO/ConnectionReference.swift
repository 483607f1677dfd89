/// A Sendable way to reach a transport from another thread: `execute` hops onto its loop and runs
/// the body there if the transport is still open. It does not keep the transport alive.
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
        weak var transport: (any Transport)?
        init(_ transport: any Transport) { self.transport = transport }
    }

    init(_ transport: any Transport) {
        eventLoop = transport.eventLoop
        box = WeakBox(transport)
    }

    /// Runs `body` on the transport's loop, unless it has closed (or the loop stopped).
    public func execute(_ body: @escaping @Sendable (any Transport) -> Void) {
        let box = self.box
        eventLoop.execute {
            guard let transport = box.transport, transport.isOpen else { return }
            body(transport)
        }
    }
}
