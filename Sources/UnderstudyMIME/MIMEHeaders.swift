/// The header fields of a message or part, in their original order, duplicates kept.
/// Lookup by name is case-insensitive.
public struct MIMEHeaders: Sendable, Hashable, RandomAccessCollection {
    public private(set) var fields: [MIMEHeader]

    public init(_ fields: [MIMEHeader] = []) { self.fields = fields }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> MIMEHeader { fields[position] }

    /// The decoded value of the first field named `name`.
    public subscript(name: String) -> String? { first(named: name)?.value }

    public func first(named name: String) -> MIMEHeader? {
        fields.first { $0.hasName(name) }
    }

    /// Every field named `name`, in order.
    public func all(named name: String) -> [MIMEHeader] {
        fields.filter { $0.hasName(name) }
    }

    /// Parses the header block starting at `range.lowerBound`. Returns the headers and where the body
    /// starts (after the empty line; `range.upperBound` when there is none). Accepts CRLF and bare LF,
    /// skips lines that are neither fields nor continuations (an mbox "From " line, garbage), and
    /// keeps at most `maxFields` fields (`truncated` tells if more were dropped).
    static func parse(_ bytes: [UInt8], in range: Range<Int>, maxFields: Int)
        -> (headers: MIMEHeaders, bodyStart: Int, truncated: Bool) {
        bytes.withUnsafeBufferPointer { p in
            var fields: [MIMEHeader] = []
            var truncated = false
            var i = range.lowerBound
            let end = range.upperBound
            // Current field: name range and value byte ranges (lines, continuation lines).
            var currentName: Range<Int>? = nil
            var valueStart = 0
            var valueEnd = 0

            func finish() {
                guard let nameRange = currentName else { return }
                currentName = nil
                if fields.count >= maxFields { truncated = true; return }
                let name = String(decoding: UnsafeBufferPointer(rebasing: p[nameRange]), as: UTF8.self)
                // Unfold: drop CR and LF, keep everything else.
                var value = [UInt8]()
                value.reserveCapacity(valueEnd - valueStart)
                var k = valueStart
                while k < valueEnd {
                    let b = p[k]
                    if b != 0x0D && b != 0x0A { value.append(b) }
                    k += 1
                }
                var lo = 0
                var hi = value.count
                while lo < hi, value[lo] == 0x20 || value[lo] == 0x09 { lo += 1 }
                while hi > lo, value[hi - 1] == 0x20 || value[hi - 1] == 0x09 { hi -= 1 }
                let raw = value.withUnsafeBufferPointer {
                    Charset.decodeUTF8Lenient(buffer: UnsafeBufferPointer(rebasing: $0[lo..<hi]))
                }
                fields.append(MIMEHeader(name: name, rawValue: raw))
            }

            while i < end {
                // Find the end of this line.
                var lineEnd = i
                while lineEnd < end, p[lineEnd] != 0x0A { lineEnd += 1 }
                let next = lineEnd < end ? lineEnd + 1 : end
                var contentEnd = lineEnd
                if contentEnd > i, p[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                if contentEnd == i {  // empty line: end of the header block
                    finish()
                    return (MIMEHeaders(fields), next, truncated)
                }
                let first = p[i]
                if first == 0x20 || first == 0x09 {
                    if currentName != nil { valueEnd = contentEnd }  // continuation
                } else {
                    finish()
                    var colon = i
                    while colon < contentEnd, p[colon] != UInt8(ascii: ":") { colon += 1 }
                    var nameEnd = colon
                    while nameEnd > i, p[nameEnd - 1] == 0x20 || p[nameEnd - 1] == 0x09 { nameEnd -= 1 }
                    if colon < contentEnd, nameEnd > i, !containsSpace(p, i..<nameEnd) {
                        currentName = i..<nameEnd
                        valueStart = colon + 1
                        valueEnd = contentEnd
                    }
                    // Otherwise not a field (an mbox "From " line, garbage): skipped.
                }
                i = next
            }
            finish()
            return (MIMEHeaders(fields), end, truncated)
        }
    }

    private static func containsSpace(_ p: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Bool {
        for k in r where p[k] == 0x20 || p[k] == 0x09 || p[k] < 0x20 { return true }
        return false
    }
}
