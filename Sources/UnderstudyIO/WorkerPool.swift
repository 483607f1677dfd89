#if canImport(Glibc)
import Glibc
#endif
@preconcurrency import Dispatch  // DispatchSemaphore is thread-safe; Dispatch does not say so in Swift yet
import Synchronization
import CShims

/// A few threads for work that blocks or burns CPU (SQLite reads and searches, RSA signing), so that
/// loop threads only parse, route and write, and one slow request never delays the SMTP sessions
/// and other connections sharing its loop.
///
/// Bounded both ways: `threads` threads, and at most `queueLimit` jobs waiting for one. A job
/// submitted past that is refused at once (`submit` returns false) so the caller can answer 503
/// instead of queueing without end. Jobs run in submission order as threads free up.
public final class WorkerPool: Sendable {
    private struct State {
        var jobs: [(@Sendable () -> Void)?] = []
        var head = 0
        var stopping = false
        var waiting: Int { jobs.count - head }
    }

    public let threadCount: Int
    public let queueLimit: Int
    private let state = Mutex(State())
    /// One signal per queued job (and one per thread at shutdown).
    private let available = DispatchSemaphore(value: 0)
    private let threads: Mutex<[pthread_t]>
    private let running = Atomic<Int>(0)

    public init(threads: Int = max(2, EventLoopGroup.coreCount), queueLimit: Int = 1024, name: String = "understudy-work") {
        precondition(threads > 0 && queueLimit > 0, "a WorkerPool needs at least one thread and one queue place")
        threadCount = threads
        self.queueLimit = queueLimit
        self.threads = Mutex([])
        var ids: [pthread_t] = []
        for index in 0..<threads {
            ids.append(spawnThread { [self] in
                TerminationSignal.blockInCurrentThread()
                _ = CShims_set_thread_name("\(name)-\(index)")
                work()
            })
        }
        self.threads.withLock { $0 = ids }
    }

    /// Jobs submitted and not yet taken by a thread.
    public var queuedCount: Int { state.withLock { $0.waiting } }

    /// Queues `job`; false when the queue is full or the pool is shut down (nothing then runs it).
    @discardableResult
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let queued = state.withLock { state -> Bool in
            guard !state.stopping, state.waiting < queueLimit else { return false }
            state.jobs.append(job)
            return true
        }
        if queued { available.signal() }
        return queued
    }

    /// Runs `work` on a worker thread, then `completion` with its result on `loop`'s thread.
    /// False when the job was refused (see `submit`); `completion` then never runs.
    @discardableResult
    public func submit<T: Sendable>(_ work: @escaping @Sendable () -> T, deliveringOn loop: EventLoop,
                                    _ completion: @escaping @Sendable (T) -> Void) -> Bool {
        submit {
            let result = work()
            loop.execute { completion(result) }
        }
    }

    /// Jobs queued and not yet started.
    public var waitingCount: Int { state.withLock { $0.waiting } }

    /// Jobs running now.
    public var runningCount: Int { running.load(ordering: .relaxed) }

    /// Refuses new jobs, lets the queued ones finish, and joins the threads. Must not be called from
    /// a job.
    public func shutdown() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        for _ in 0..<threadCount { available.signal() }
        let ids = threads.withLock { ids in defer { ids = [] }; return ids }
        for id in ids { pthread_join(id, nil) }
    }

    private func work() {
        while true {
            available.wait()
            let next = state.withLock { state -> (@Sendable () -> Void)?? in
                guard state.waiting > 0 else { return state.stopping ? .none : .some(nil) }
                let job = state.jobs[state.head]
                state.jobs[state.head] = nil
                state.head += 1
                if state.head >= 64 && state.head * 2 >= state.jobs.count {
                    state.jobs.removeFirst(state.head)
                    state.head = 0
                }
                return .some(job)
            }
            guard let job = next else { return }   // stopping, and nothing left
            guard let job else { continue }
            running.add(1, ordering: .relaxed)
            job()
            running.subtract(1, ordering: .relaxed)
        }
    }
}
