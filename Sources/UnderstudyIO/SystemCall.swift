#if canImport(Glibc)
import Glibc
#endif

/// The outcome of a non-blocking system call.
enum SystemCallResult<Value> {
    case done(Value)
    case wouldBlock
}

/// The single wrapper every system call of this module goes through.
/// - retries on EINTR,
/// - maps EAGAIN/EWOULDBLOCK to `.wouldBlock`,
/// - treats EBADF and EFAULT as programmer errors (a closed or foreign fd, a bad pointer): they crash,
/// - throws `IOError.systemCall` carrying the errno and the call's name otherwise.
@inline(__always)
func systemCall<T: FixedWidthInteger>(_ name: StaticString, _ body: () -> T) throws(IOError) -> SystemCallResult<T> {
    while true {
        let result = body()
        if result >= 0 { return .done(result) }
        let code = errno
        switch code {
        case EINTR: continue
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EBADF, EFAULT:
            preconditionFailure("\(name) failed with errno \(code): a closed file descriptor or bad pointer is a bug in Understudy")
        default:
            throw IOError.systemCall("\(name)", errno: code)
        }
    }
}

/// For calls that cannot block (socket, bind, epoll_ctl...): `.wouldBlock` is reported as an error.
@inline(__always)
@discardableResult
func systemCallNonBlocking<T: FixedWidthInteger>(_ name: StaticString, _ body: () -> T) throws(IOError) -> T {
    switch try systemCall(name, body) {
    case .done(let value): return value
    case .wouldBlock: throw IOError.systemCall("\(name)", errno: EAGAIN)
    }
}

/// Closes a file descriptor we own. EINTR after close still means closed on Linux, so no retry.
func closeDescriptor(_ fd: Int32) {
    if Glibc.close(fd) != 0 {
        let code = errno
        precondition(code != EBADF, "close(\(fd)) failed with EBADF: closing a descriptor twice is a bug in Understudy")
    }
}
