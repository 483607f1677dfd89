/// One SMTP reply: a code, an enhanced status code (RFC 3463) and text lines.
///
/// Thrown by the parsers so a syntax problem carries the exact reply the client gets.
struct SMTPReply: Error, Sendable, Equatable {
    var code: Int
    /// `nil` for replies RFC 2034 excludes: the greeting, HELO/EHLO, 334 and 354.
    var enhanced: String?
    var lines: [String]

    init(_ code: Int, _ enhanced: String?, _ lines: String...) {
        self.code = code
        self.enhanced = enhanced
        self.lines = lines
    }

    init(_ code: Int, _ enhanced: String?, lines: [String]) {
        self.code = code
        self.enhanced = enhanced
        self.lines = lines
    }

    /// Appends the wire form: `250-first`, ..., `250 last`, each ending in CRLF. Control characters in the
    /// text (a reason from the edge, a name echoed back) are replaced, so a reply never breaks framing.
    func serialize(into out: inout [UInt8]) {
        let text = lines.isEmpty ? [""] : lines
        let codeBytes = Array(String(code).utf8)
        for (index, line) in text.enumerated() {
            out.append(contentsOf: codeBytes)
            out.append(index == text.count - 1 ? UInt8(ascii: " ") : UInt8(ascii: "-"))
            if let enhanced {
                out.append(contentsOf: enhanced.utf8)
                if !line.isEmpty { out.append(UInt8(ascii: " ")) }
            }
            for byte in line.utf8 { out.append(byte < 0x20 || byte == 0x7F ? UInt8(ascii: "?") : byte) }
            out.append(13)
            out.append(10)
        }
    }

    var bytes: [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }
}
