/// A timer handle: `cancel()` from any thread. Cancelling a timer that already ran does nothing.
public struct Scheduled: Sendable {
    let loop: EventLoop
    let id: UInt64
    public func cancel() { loop.cancelTimer(id: id) }
}
