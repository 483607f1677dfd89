/// Just enough of an SMTP client for `understudy send`: EHLO, MAIL, RCPT, DATA, QUIT.
struct SimpleSMTPClient {
    let host: String
    let port: Int

    struct Reply { var code: Int; var lines: [String] }

    /// The server answered, and said no (exit 1, unlike a server that cannot be reached).
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    static func readReply(_ socket: BlockingSocket) throws -> Reply {
        var lines: [String] = []
        while true {
            guard let line = try socket.readLine(), line.count >= 3, let code = Int(line.prefix(3)) else {
                throw BlockingSocket.Failure(description: "the SMTP server closed the connection or answered garbage")
            }
            lines.append(String(line.dropFirst(4)))
            if line.count == 3 || line[line.index(line.startIndex, offsetBy: 3)] == " " { return Reply(code: code, lines: lines) }
        }
    }

    /// Sends one message; returns the server's final reply text (`Ok: queued as <id>`).
    func send(from: String, to: [String], message: [UInt8]) throws -> String {
        let socket = try BlockingSocket(host: host, port: port)
        defer { socket.close() }
        func expect(_ code: Int, _ what: String) throws -> Reply {
            let reply = try Self.readReply(socket)
            guard reply.code == code else {
                throw Refusal(description: "SMTP \(what) refused: \(reply.code) \(reply.lines.joined(separator: " "))")
            }
            return reply
        }
        _ = try expect(220, "greeting")
        try socket.send("EHLO understudy-cli\r\n")
        _ = try expect(250, "EHLO")
        try socket.send("MAIL FROM:<\(from)>\r\n")
        _ = try expect(250, "MAIL")
        for r in to {
            try socket.send("RCPT TO:<\(r)>\r\n")
            _ = try expect(250, "RCPT")
        }
        try socket.send("DATA\r\n")
        _ = try expect(354, "DATA")
        try socket.send(Self.dotStuffed(message) + Array("\r\n.\r\n".utf8))
        let done = try expect(250, "message")
        try socket.send("QUIT\r\n")
        return done.lines.joined(separator: " ")
    }

    /// CRLF line ends, and a dot doubled at the start of each line (RFC 5321 4.5.2).
    static func dotStuffed(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + 64)
        var atLineStart = true
        var previous: UInt8 = 0
        for b in message {
            if b == 10 && previous != 13 { out.append(13) }
            if atLineStart && b == UInt8(ascii: ".") { out.append(b) }
            out.append(b)
            atLineStart = b == 10
            previous = b
        }
        while out.count >= 2 && out[out.count - 2] == 13 && out[out.count - 1] == 10 { out.removeLast(2) }
        return out
    }
}
