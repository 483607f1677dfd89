#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import CShims

/// A fixed set of event loops, one thread each (one per core by default).
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let threads: Mutex<[pthread_t]>
    private let nextIndex = Atomic<Int>(0)
    private let shutDown = Atomic<Bool>(false)

    /// The number of online cores.
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Starts `threads` loops. Also ignores SIGPIPE process-wide (writes use MSG_NOSIGNAL as well).
    public init(threads: Int = EventLoopGroup.coreCount) throws(IOError) {
        precondition(threads > 0, "an EventLoopGroup needs at least one thread")
        signal(SIGPIPE, SIG_IGN)
        var loops: [EventLoop] = []
        do throws(IOError) {
            for i in 0..<threads { loops.append(try EventLoop(index: i)) }
        } catch {
            for loop in loops { loop.closeWithoutRunning() }   // e.g. out of descriptors
            throw error
        }
        self.loops = loops
        var ids: [pthread_t] = []
        for loop in loops {
            ids.append(spawnThread {
                TerminationSignal.blockInCurrentThread()
                _ = CShims_set_thread_name("understudy-io-\(loop.index)")
                loop.run()
            })
        }
        self.threads = Mutex(ids)
        // Make `inEventLoop` reliable before returning: wait until every loop has recorded its thread.
        for loop in loops {
            let started = StartFlag()
            loop.execute { started.value.store(true, ordering: .releasing) }
            while !started.value.load(ordering: .acquiring) { usleep(50) }
        }
    }

    /// The next loop, round robin.
    public func next() -> EventLoop {
        loops[nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Graceful shutdown: listeners stop accepting, connections are asked to finish what they are
    /// doing (`ConnectionHandler.connectionShouldQuiesce`), and whatever remains after `timeout` is
    /// closed. Blocks until every loop thread has exited. Must not be called on a loop thread.
    public func shutdownGracefully(timeout: Duration = .seconds(10)) {
        precondition(!loops.contains(where: \.inEventLoop), "shutdownGracefully would deadlock on its own loop thread")
        guard !shutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for loop in loops {
            loop.execute { loop.beginShutdown(within: timeout) }
        }
        let ids = threads.withLock { ids in defer { ids = [] }; return ids }
        for id in ids { pthread_join(id, nil) }
    }

    private final class StartFlag: Sendable { let value = Atomic<Bool>(false) }
}
