/// A total time budget the session applies on top of its idle timeout: the edge starts counting
/// `duration` when it first sees an `id`, and calls `timedOut()` once it runs out, whatever
/// input arrives meanwhile. A new `id` is a new budget.
public struct SMTPTimeLimit: Sendable, Equatable {
    public let id: UInt64
    public let duration: Duration
}
