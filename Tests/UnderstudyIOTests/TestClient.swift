#if canImport(Glibc)
import Glibc
#endif
import Synchronization
@testable import UnderstudyIO

/// A blocking loopback TCP client for live tests. Reads time out after 5 s so a bug cannot hang a test.
final class TestClient: @unchecked Sendable {   // a plain fd; tests use one writer and one reader thread
    let fd: Int32

    init(_ address: SocketAddress) throws {
        fd = socket(address.family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw IOError.systemCall("socket", errno: errno) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = address.withSockAddr { connect(fd, $0, $1) }
        if rc != 0 { let e = errno; Glibc.close(fd); throw IOError.systemCall("connect", errno: e) }
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// Reads until `count` bytes, EOF or the 5 s timeout.
    func read(count: Int) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while result.count < count {
            let n = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, min($0.count, count - result.count), 0) }
            if n <= 0 { break }
            result.append(contentsOf: buffer[0..<n])
        }
        return result
    }

    /// Reads until EOF (or the timeout); `nil` if the timeout hit before EOF.
    func readToEnd() -> [UInt8]? {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return result }
            if n < 0 { return errno == ECONNRESET ? result : nil }
            result.append(contentsOf: buffer[0..<n])
        }
    }

    func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    func close() { Glibc.close(fd) }
}

/// Polls `condition` until true or 10 s pass (a liveness bound, not a timing assertion).
func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}

/// A thread-safe box for test observations.
final class Box<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}
