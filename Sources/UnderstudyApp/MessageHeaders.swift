/// The header block at the start of a message piped to `understudy send`, if it has one: every line
/// up to the first empty line (or the end) is a field (`Name: value`) or the continuation of one.
/// Anything else means the input is a bare body.
struct MessageHeaders {
    struct Field {
        var name: String
        /// Unfolded, without the leading space.
        var value: String
        /// The field's bytes in the message, continuation lines and line end included.
        var range: Range<Int>
    }

    let fields: [Field]
    private let message: [UInt8]

    init?(_ message: [UInt8]) {
        var fields: [Field] = []
        var start = 0
        while start < message.count {
            var end = start
            while end < message.count && message[end] != 10 { end += 1 }
            let next = min(end + 1, message.count)
            var line = message[start..<end]
            if line.last == 13 { line = line.dropLast() }
            if line.isEmpty { break }
            if line.first == 32 || line.first == 9 {
                guard !fields.isEmpty else { return nil }
                fields[fields.count - 1].value += String(decoding: line, as: UTF8.self)
                fields[fields.count - 1].range = fields[fields.count - 1].range.lowerBound..<next
            } else {
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                      line[line.startIndex..<colon].allSatisfy({ (33...126).contains($0) }) else { return nil }
                let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
                fields.append(Field(name: String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                                    value: value.trimmingSpaces(), range: start..<next))
            }
            start = next
        }
        guard !fields.isEmpty else { return nil }
        self.fields = fields
        self.message = message
    }

    func values(_ name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The message without the fields called `name` (sendmail -t drops Bcc).
    func removing(_ name: String) -> [UInt8] {
        var out = message
        for field in fields.reversed() where field.name.lowercased() == name.lowercased() {
            out.removeSubrange(field.range)
        }
        return out
    }
}
