#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes the DATA text stream (RFC 5321 4.1.1.4, 4.5.2): removes the stuffed leading dot, ends at a line
/// that is just ".", and normalises every line end (CRLF or a bare LF) to CRLF. It keeps only one bit of
/// state between calls, so each input byte is examined once however the stream is split.
struct SMTPDotDecoder: Sendable {
    private var atLineStart = true

    /// Decodes from the start of `input` into `body`. Returns the octets consumed and whether the end-of-data
    /// line was consumed. Bytes that cannot be decided yet (a dot at a line start, a trailing CR) are left unconsumed.
    mutating func decode(_ input: UnsafeBufferPointer<UInt8>, into body: inout SMTPMessageBody) -> (consumed: Int, finished: Bool) {
        let count = input.count
        var index = 0
        while index < count {
            if atLineStart {
                if input[index] == UInt8(ascii: ".") {
                    guard index + 1 < count else { return (index, false) }
                    let next = input[index + 1]
                    if next == 10 { return (index + 2, true) }
                    if next == 13 {
                        guard index + 2 < count else { return (index, false) }
                        if input[index + 2] == 10 { return (index + 3, true) }
                    }
                    index += 1  // the stuffed dot
                }
                atLineStart = false
                continue
            }
            // memchr: lines are mostly long, and this runs over every byte of every message.
            let lineFeed = memchr(input.baseAddress! + index, 10, count - index)
                .map { UnsafeRawPointer(input.baseAddress!).distance(to: UnsafeRawPointer($0)) } ?? count
            if lineFeed < count {
                var end = lineFeed
                if end > index && input[end - 1] == 13 { end -= 1 }
                body.append(UnsafeBufferPointer(rebasing: input[index..<end]))
                body.appendLineEnd()
                index = lineFeed + 1
                atLineStart = true
            } else {
                var end = count
                if input[end - 1] == 13 { end -= 1 }  // may be the CR of a CRLF split across reads
                body.append(UnsafeBufferPointer(rebasing: input[index..<end]))
                return (end, false)
            }
        }
        return (index, false)
    }
}
