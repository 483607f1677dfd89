#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import UnderstudyIO

/// A response as seen on the wire by the test client.
struct WireResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    var chunked: Bool

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking loopback HTTP/1.1 client that reads raw responses (Content-Length or chunked), keeping
/// leftover bytes for pipelined responses. Reads time out after 5 s so a bug cannot hang a test.
final class HTTPTestClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var sawEOF = false

    init(_ address: SocketAddress) throws {
        fd = socket(address.family == .ipv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw IOError.systemCall("socket", errno: errno) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = address.withSockAddrForTests { connect(fd, $0, $1) }
        if rc != 0 { let e = errno; Glibc.close(fd); throw IOError.systemCall("connect", errno: e) }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Reads more bytes into the buffer; false on EOF, error or timeout.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { sawEOF = true; return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func takeLine() -> String? {
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

    private func take(_ count: Int) -> [UInt8]? {
        while buffer.count < count { if !fill() { return nil } }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads one response; nil if the connection ended or timed out first.
    func readResponse(forHead: Bool = false) -> WireResponse? {
        guard let statusLine = takeLine() else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var headers: [(String, String)] = []
        while let line = takeLine() {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces))
        }
        var response = WireResponse(status: status, headers: headers, body: [], chunked: false)
        if forHead || status / 100 == 1 || status == 204 || status == 304 { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            response.chunked = true
            while true {
                guard let sizeLine = takeLine(), let size = Int(sizeLine, radix: 16) else { return nil }
                if size == 0 {
                    while let trailer = takeLine(), !trailer.isEmpty {}
                    break
                }
                guard let data = take(size), takeLine() != nil else { return nil }
                response.body.append(contentsOf: data)
            }
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            guard let body = take(length) else { return nil }
            response.body = body
        }
        return response
    }

    /// True if the server closes the connection (EOF) with nothing more to read.
    func readsEOF() -> Bool {
        if !buffer.isEmpty { return false }
        return !fill() && sawEOF && buffer.isEmpty
    }

    func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }
    func close() { Glibc.close(fd) }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

extension SocketAddress {
    func withSockAddrForTests<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = UInt16(port).bigEndian
            _ = inet_pton(AF_INET, host, &sin.sin_addr)
            return withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        case .ipv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = UInt16(port).bigEndian
            _ = inet_pton(AF_INET6, host, &sin6.sin6_addr)
            return withUnsafePointer(to: &sin6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        }
    }
}

/// Polls `condition` until true or 10 s pass (a liveness bound, not a timing assertion).
func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}

final class Box<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}

/// Runs `body` on a new detached thread (no Foundation).
func onOtherThread(_ body: @escaping @Sendable () -> Void) {
    final class Context { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    var id = pthread_t()
    let raw = Unmanaged.passRetained(Context(body)).toOpaque()
    pthread_create(&id, nil, { raw in
        Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, raw)
    pthread_detach(id)
}
