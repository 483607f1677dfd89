#if canImport(Glibc)
import Glibc
#endif
import UnderstudyJSON

/// A small blocking HTTP/1.1 client for live tests: one request per connection, 10 s socket timeouts.
struct TestHTTPClient {
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var json: JSONValue? { try? JSONValue.parse(body) }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let host: String
    let port: Int

    init(address: String) {
        let colon = address.lastIndex(of: ":")!
        host = String(address[..<colon])
        port = Int(address[address.index(after: colon)...])!
    }

    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> Response {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        if !body.isEmpty || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return try raw(Array(text.utf8) + body)
    }

    func get(_ target: String) throws -> Response { try request("GET", target) }

    func postJSON(_ target: String, _ value: JSONValue) throws -> Response {
        try request("POST", target, headers: [("Content-Type", "application/json")], body: value.serializedBytes())
    }

    struct Failure: Error { let message: String }

    /// Sends bytes as they are and reads until the server closes.
    func raw(_ bytes: [UInt8]) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(message: "socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &addr.sin_addr)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw Failure(message: "connect to \(host):\(port) failed") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(message: "send failed") }
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return try Self.parse(received)
    }

    static func parse(_ bytes: [UInt8]) throws -> Response {
        guard let end = bytes.indices.first(where: { $0 + 3 < bytes.count && bytes[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }) else {
            throw Failure(message: "no complete response: \(String(decoding: bytes, as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedByCRLF: ())
        let statusLine = head[0].split(separator: " ")
        var headers: [(String, String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces()))
        }
        var body = Array(bytes[(end + 4)...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" }) {
            body = dechunk(body)
        }
        return Response(status: Int(statusLine[1]) ?? 0, headers: headers, body: body)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard let lineEnd = (i..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) else { break }
            let size = Int(String(decoding: bytes[i..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
            if size == 0 { break }
            out += bytes[(lineEnd + 2)..<min(bytes.count, lineEnd + 2 + size)]
            i = lineEnd + 2 + size + 2
        }
        return out
    }
}

extension String {
    func components(separatedByCRLF: ()) -> [String] {
        var out: [String] = []
        var current = ""
        var it = self.unicodeScalars.makeIterator()
        while let c = it.next() {
            if c == "\r" { continue }
            if c == "\n" { out.append(current); current = "" } else { current.unicodeScalars.append(c) }
        }
        out.append(current)
        return out
    }

    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
