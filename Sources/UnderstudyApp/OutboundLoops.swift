import Synchronization
import UnderstudyIO

/// The event loops Understudy's own requests run on, known once the application has made them
/// (routes are built first). Until then, and in tests without loops, senders use the blocking client.
final class OutboundLoops: Sendable {
    private let group = Mutex<EventLoopGroup?>(nil)

    func set(_ g: EventLoopGroup) { group.withLock { $0 = g } }
    func next() -> EventLoop? { group.withLock { $0?.next() } }
}
