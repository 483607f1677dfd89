/// Something registered with a loop's epoll: a listener or a connection. Confined to its loop.
protocol Selectable: AnyObject {
    /// epoll reported `events` (EPOLLIN, EPOLLOUT, EPOLLHUP, EPOLLERR...) for this registration.
    func ready(_ events: UInt32)
    /// The loop is shutting down gracefully: stop taking new work, finish what is in flight.
    func quiesce()
    /// The shutdown deadline passed: release everything now.
    func forceClose()
}

enum EpollEvents {
    static let input: UInt32 = 0x001
    static let output: UInt32 = 0x004
    static let error: UInt32 = 0x008
    static let hangUp: UInt32 = 0x010
    static let readHangUp: UInt32 = 0x2000
}
