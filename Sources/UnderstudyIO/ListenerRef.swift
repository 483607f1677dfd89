#if canImport(Glibc)
import Glibc
#endif
import CShims

/// Carries a loop-confined listener through the server's Mutex; only touched via `loop.execute`.
final class ListenerRef: @unchecked Sendable {
    let listener: Listener
    init(_ listener: Listener) { self.listener = listener }
}
