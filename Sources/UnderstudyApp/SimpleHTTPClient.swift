import UnderstudyJSON

/// A one-request-per-connection HTTP/1.1 client over `BlockingSocket`.
struct SimpleHTTPClient {
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

    /// From `http://host:port` or `host:port`; anything else is a usage error.
    init(server: String) throws(UsageError) {
        var s = Substring(server)
        if s.hasPrefix("http://") { s = s.dropFirst(7) }
        while s.hasSuffix("/") { s = s.dropLast() }
        guard let address = ListenAddress(String(s)) else {
            throw UsageError("--server must look like http://127.0.0.1:7080, got '\(server)'")
        }
        host = address.host
        port = address.port
    }

    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
                 readTimeout: Int = 10) throws(BlockingSocket.Failure) -> Response {
        let socket = try BlockingSocket(host: host, port: port)
        defer { socket.close() }
        socket.setReadTimeout(readTimeout)
        var text = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) {   // a caller's Host replaces ours
            text += "Host: \(host.contains(":") ? "[\(host)]" : host):\(port)\r\n"
        }
        text += "Connection: close\r\n"
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        try socket.send(Array(text.utf8) + body)
        guard let statusLine = try socket.readLine() else { throw BlockingSocket.Failure(description: "the server closed the connection without answering") }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw BlockingSocket.Failure(description: "not an HTTP response: \(statusLine)") }
        var headers: [(String, String)] = []
        while let line = try socket.readLine(), !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces()))
        }
        let response = Response(status: status, headers: headers, body: [])
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var body: [UInt8] = []
            while let sizeLine = try socket.readLine() {
                guard let size = Int(sizeLine.split(separator: ";").first.map(String.init)?.trimmingSpaces() ?? "", radix: 16) else { break }
                if size == 0 { break }
                guard size >= 0, body.count + size <= 64 << 20 else { throw BlockingSocket.Failure(description: "chunked response body over 64 MiB") }
                body += try socket.read(count: size)
                _ = try socket.readLine()
            }
            return Response(status: status, headers: headers, body: body)
        }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            // The audit and notify talk to servers that are not Understudy: bound what they may send.
            guard length <= 64 << 20 else { throw BlockingSocket.Failure(description: "response body of \(length) bytes is over 64 MiB") }
            return Response(status: status, headers: headers, body: try socket.read(count: length))
        }
        return Response(status: status, headers: headers, body: try socket.readToEnd())
    }

    func get(_ target: String, readTimeout: Int = 10) throws(BlockingSocket.Failure) -> Response {
        try request("GET", target, readTimeout: readTimeout)
    }

    func postJSON(_ target: String, _ value: JSONValue) throws(BlockingSocket.Failure) -> Response {
        try request("POST", target, headers: [("Content-Type", "application/json")], body: value.serializedBytes())
    }
}
