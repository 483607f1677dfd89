#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Polls `condition` until true or 10 s pass (a liveness bound, not a timing assertion).
public func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}

/// A thread-safe box for test observations.
public final class Box<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    public init(_ value: Value) { storage = Mutex(value) }
    public var value: Value { storage.withLock { $0 } }
    public func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}

/// A detached thread for tests (no Foundation).
public final class TestThread: @unchecked Sendable {
    private let body: @Sendable () -> Void
    public init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    public func start() {
        var id = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&id, nil, { raw in
            Unmanaged<TestThread>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, context)
        pthread_detach(id)
    }
}

/// Runs `body` on a new detached thread.
public func onOtherThread(_ body: @escaping @Sendable () -> Void) {
    TestThread(body).start()
}
