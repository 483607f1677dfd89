#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client socket with timeouts, for the CLI's talk to a running server (and tests).
/// The server side never uses this: it runs on the event loops.
final class BlockingSocket {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host:port` (IPv4 or IPv6 literal, or "localhost"), failing after `timeout` seconds.
    init(host: String, port: Int, timeout: Int = 10) throws(Failure) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let h = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(h, String(port), &hints, &result) == 0, let info = result else {
            throw Failure(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(result) }
        fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "cannot connect to \(host):\(port): \(reason); is `understudy serve` running there?")
        }
    }

    /// Sets the receive timeout, in seconds.
    func setReadTimeout(_ seconds: Int) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8]) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "send failed: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    func send(_ text: String) throws(Failure) { try send(Array(text.utf8)) }

    /// More bytes into the buffer; false at end of stream.
    private func fill() throws(Failure) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                throw Failure(description: errno == EAGAIN ? "timed out waiting for the server" : "recv failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return false }
            buffer += chunk[0..<n]
            return true
        }
    }

    /// One line without its CRLF; nil at end of stream.
    func readLine(limit: Int = 65536) throws(Failure) -> String? {
        while true {
            if let lf = buffer.firstIndex(of: 10) {
                var line = Array(buffer[..<lf])
                buffer.removeFirst(lf + 1)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            if buffer.count > limit { throw Failure(description: "line longer than \(limit) bytes") }
            if try !fill() { return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }
        }
    }

    func read(count: Int) throws(Failure) -> [UInt8] {
        while buffer.count < count {
            if try !fill() { throw Failure(description: "connection closed early") }
        }
        let out = Array(buffer[..<count])
        buffer.removeFirst(count)
        return out
    }

    func readToEnd(limit: Int = 64 << 20) throws(Failure) -> [UInt8] {
        while try fill() {
            if buffer.count > limit { throw Failure(description: "response larger than \(limit) bytes") }
        }
        defer { buffer = [] }
        return buffer
    }

    func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }
}
