#if canImport(Glibc)
import Glibc
#endif
import UnderstudyIO

/// A blocking loopback TCP client for live tests of the servers: raw byte reads, and buffered
/// line and length reads for the text protocols. Reads time out (5 s by default) so a bug cannot
/// hang a test. `@unchecked Sendable`: a plain descriptor, used by at most one writing and one
/// reading thread, and the read buffer is only touched by the reading one.
public final class TestClient: @unchecked Sendable {
    public let fd: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false

    public init(_ address: SocketAddress, timeoutSeconds: Int = 5) throws {
        fd = socket(address.family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw IOError.systemCall("socket", errno: errno) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = address.withSockAddr { connect(fd, $0, $1) }
        if rc != 0 {
            let e = errno
            // Through close(): a class whose init throws once every property is set still runs
            // deinit, which would close the descriptor a second time (by then perhaps another
            // thread's: an event loop's eventfd, as a CI run showed).
            close()
            throw IOError.systemCall("connect", errno: e)
        }
    }

    deinit { close() }

    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Reads up to `count` bytes: fewer only at EOF or the timeout.
    public func read(count: Int) -> [UInt8] {
        while buffer.count < count, fill(upTo: count - buffer.count) {}
        let n = min(count, buffer.count)
        defer { buffer.removeFirst(n) }
        return Array(buffer[0..<n])
    }

    /// Reads until EOF (a reset counts as EOF); nil if the timeout hit first.
    public func readToEnd() -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            if n < 0 {
                if errno == ECONNRESET { break }
                return nil
            }
            buffer.append(contentsOf: chunk[0..<n])
        }
        defer { buffer = [] }
        return buffer
    }

    /// The next line without its LF or CR LF; nil when the stream ends first.
    public func readLine() -> String? {
        while true {
            if let lf = buffer.firstIndex(of: 0x0A) {
                let end = lf > 0 && buffer[lf - 1] == 0x0D ? lf - 1 : lf
                let line = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(lf + 1)
                return line
            }
            if !fill() { return nil }
        }
    }

    /// Exactly `count` bytes, or nil when the stream ends first.
    public func take(_ count: Int) -> [UInt8]? {
        while buffer.count < count { if !fill() { return nil } }
        defer { buffer.removeFirst(count) }
        return Array(buffer[0..<count])
    }

    /// What was read past the last line or count taken (a TLS record right after a plain reply).
    public func takeBuffered() -> [UInt8] {
        defer { buffer = [] }
        return buffer
    }

    /// True if the server closed the connection with nothing more to read.
    public func readsEOF() -> Bool {
        if !buffer.isEmpty { return false }
        return !fill() && buffer.isEmpty
    }

    public func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    /// Closes the descriptor once; later calls (and deinit) do nothing.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// Reads what is available (at most `limit` bytes); false at EOF, on an error or the timeout.
    private func fill(upTo limit: Int = 65536) -> Bool {
        var chunk = [UInt8](repeating: 0, count: min(max(limit, 1), 65536))
        let n = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }
}
