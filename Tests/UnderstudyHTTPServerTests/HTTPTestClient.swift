import UnderstudyIO
import UnderstudyTestSupport

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

/// A blocking loopback HTTP/1.1 client that reads raw responses (Content-Length or chunked); the
/// socket's buffer keeps leftover bytes for pipelined responses.
final class HTTPTestClient: @unchecked Sendable {
    let connection: TestClient

    init(_ address: SocketAddress) throws {
        connection = try TestClient(address)
    }

    var fd: Int32 { connection.fd }

    func send(_ text: String) { connection.send(text) }
    func send(_ bytes: [UInt8]) { connection.send(bytes) }

    /// Reads one response; nil if the connection ended or timed out first.
    func readResponse(forHead: Bool = false) -> WireResponse? {
        guard let statusLine = connection.readLine() else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var headers: [(String, String)] = []
        while let line = connection.readLine() {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces))
        }
        var response = WireResponse(status: status, headers: headers, body: [], chunked: false)
        if forHead || status / 100 == 1 || status == 204 || status == 304 { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            response.chunked = true
            while true {
                guard let sizeLine = connection.readLine(), let size = Int(sizeLine, radix: 16) else { return nil }
                if size == 0 {
                    while let trailer = connection.readLine(), !trailer.isEmpty {}
                    break
                }
                guard let data = connection.take(size), connection.readLine() != nil else { return nil }
                response.body.append(contentsOf: data)
            }
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            guard let body = connection.take(length) else { return nil }
            response.body = body
        }
        return response
    }

    /// True if the server closes the connection (EOF) with nothing more to read.
    func readsEOF() -> Bool { connection.readsEOF() }

    func shutdownWrite() { connection.shutdownWrite() }
    func close() { connection.close() }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
