#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes the DATA text stream (RFC 5321 4.1.1.4, 4.5.2): removes the stuffed leading dot, ends at
/// CRLF "." CRLF and nothing else, and normalises every line end (CRLF or a bare LF) to CRLF. It keeps
/// two bits of state between calls, so each input byte is examined once however the stream is split.
///
/// Only CRLF "." CRLF ends the data (SMTP smuggling, CVE-2023-51764/51765/51766): a server that also
/// ended it at LF "." LF, CRLF "." LF or LF "." CRLF would read, in a message a relay passed on as
/// one, a second message whose envelope the relay's client wrote into the body. Such a "." line,
/// next to a bare LF, is text: its dot is removed like any leading dot, and its line end becomes CRLF.
struct SMTPDotDecoder: Sendable {
    private var atLineStart = true
    /// The line end before this line was a CRLF (the DATA command's counts as one): only then can
    /// a "." line end the data.
    private var afterCRLF = true

    /// Decodes from the start of `input` into `body`. Returns the octets consumed and whether the end-of-data
    /// line was consumed. Bytes that cannot be decided yet (a dot at a line start, a trailing CR) are left unconsumed.
    mutating func decode(_ input: UnsafeBufferPointer<UInt8>, into body: inout SMTPMessageBody) -> (consumed: Int, finished: Bool) {
        let count = input.count
        var index = 0
        while index < count {
            if atLineStart {
                if input[index] == UInt8(ascii: ".") {
                    if afterCRLF {
                        guard index + 1 < count else { return (index, false) }
                        if input[index + 1] == 13 {
                            guard index + 2 < count else { return (index, false) }
                            if input[index + 2] == 10 { return (index + 3, true) }
                        }
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
                // A CR held back at the end of the last call is the first byte here, so it is seen.
                afterCRLF = lineFeed > index && input[lineFeed - 1] == 13
                let end = afterCRLF ? lineFeed - 1 : lineFeed
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
