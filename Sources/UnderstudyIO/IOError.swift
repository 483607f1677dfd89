#if canImport(Glibc)
import Glibc
#endif

/// A failed I/O operation: which call failed and the `errno` it reported, or a bad argument.
public struct IOError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case systemCall(name: String, errno: Int32)
        case invalidAddress(String)
        case loopShutDown
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// A system call `name` failed with `errno`.
    public static func systemCall(_ name: String, errno: Int32) -> IOError {
        IOError(.systemCall(name: name, errno: errno))
    }
    /// `host` is not an IPv4/IPv6 literal, "localhost" or a wildcard.
    public static func invalidAddress(_ host: String) -> IOError { IOError(.invalidAddress(host)) }
    /// The event loop was shut down before the operation could run.
    public static let loopShutDown = IOError(.loopShutDown)

    /// The `errno` value, when a system call failed.
    public var errnoCode: Int32? {
        if case .systemCall(_, let e) = code { return e }
        return nil
    }
    /// The failed system call's name, when a system call failed.
    public var systemCallName: String? {
        if case .systemCall(let n, _) = code { return n }
        return nil
    }

    public var description: String {
        switch code {
        case .systemCall(let name, let e):
            let text = strerror(e).map { String(cString: $0) } ?? "errno \(e)"
            switch e {
            case EADDRINUSE:
                return "\(name) failed: \(text) (errno \(e)). Another process uses this address: choose another port or stop it."
            case EACCES:
                return "\(name) failed: \(text) (errno \(e)). Ports below 1024 need privileges: choose a higher port."
            case EMFILE, ENFILE:
                return "\(name) failed: \(text) (errno \(e)). Raise the open-file limit (ulimit -n) or lower the connection cap."
            default:
                return "\(name) failed: \(text) (errno \(e))."
            }
        case .invalidAddress(let host):
            return "'\(host)' is not a usable listening address: give an IPv4 or IPv6 literal (127.0.0.1, ::1, 0.0.0.0, ::) or localhost."
        case .loopShutDown:
            return "The event loop has shut down: create a new EventLoopGroup to do more work."
        }
    }
}
