#if canImport(Glibc)
import Glibc
#endif

/// SIGINT / SIGTERM handling for a graceful shutdown, without async-signal-unsafe handlers.
///
/// How to use it in `main`:
/// ```swift
/// TerminationSignal.blockInCurrentThread()   // first, before any thread is started
/// let group = try EventLoopGroup()           // loop threads block both signals too
/// ... start servers ...
/// let signal = TerminationSignal.wait()      // sleeps until SIGINT or SIGTERM arrives
/// group.shutdownGracefully(timeout: .seconds(10))
/// ```
/// The signals are blocked (not ignored) so they stay pending until `wait()` takes them with
/// `sigwait`; threads started after `blockInCurrentThread()` inherit the mask.
public enum TerminationSignal: Sendable, Equatable, CustomStringConvertible {
    case interrupt   // SIGINT (Ctrl-C)
    case terminate   // SIGTERM (kill, docker stop)

    public var description: String { self == .interrupt ? "SIGINT" : "SIGTERM" }

    private static func set() -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }

    /// Blocks SIGINT and SIGTERM in the calling thread (and the threads it starts afterwards).
    public static func blockInCurrentThread() {
        var signals = set()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Blocks the calling thread until SIGINT or SIGTERM is delivered to the process.
    public static func wait() -> TerminationSignal {
        var signals = set()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        while true {
            var received: Int32 = 0
            let rc = sigwait(&signals, &received)
            if rc == 0 { return received == SIGINT ? .interrupt : .terminate }
            if rc != EINTR { preconditionFailure("sigwait failed with \(rc)") }
        }
    }
}
