#if canImport(Glibc)
import Glibc
#endif

private final class ThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// Starts a joinable thread running `body` (loop threads, worker threads).
func spawnThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    var id = pthread_t()
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    let rc = pthread_create(&id, nil, { raw in
        let box = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, context)
    precondition(rc == 0, "pthread_create failed with \(rc)")
    return id
}
