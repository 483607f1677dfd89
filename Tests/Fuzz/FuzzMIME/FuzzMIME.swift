import FuzzSupport
import UnderstudyMIME

/// libFuzzer target for `MIMEMessage(parsing:)`: the input is a whole message as DATA delivers it.
///
/// The message is decoded and everything ingest reads from it is touched (addresses, date, the
/// text and HTML bodies, every part's text, attached messages a few levels down); then again for
/// the message cut short at a point chosen by the input, as a client that disconnects mid-DATA
/// leaves it. Half the inputs use small limits so the truncation paths are reached. Decoding never
/// fails by contract, so the checks are that nothing traps and the limits hold.
enum FuzzMIME {
    static func run(_ bytes: [UInt8]) {
        let input = FuzzInput(bytes)
        let limits = input.flag(0)
            ? MIMELimits(maxDepth: 4, maxParts: 8, maxDecodedBytes: 4096, maxHeaderFields: 16)
            : MIMELimits()
        touch(MIMEMessage(parsing: bytes, limits: limits), limits: limits, depth: 0)
        touch(MIMEMessage(parsing: bytes[..<input.splitPoint], limits: limits), limits: limits, depth: 0)
    }

    static func touch(_ message: MIMEMessage, limits: MIMELimits, depth: Int) {
        FuzzCheck.expect(message.parts.count <= limits.maxParts,
                         "\(message.parts.count) parts listed, more than the limit of \(limits.maxParts)")
        var sink = 0
        sink &+= message.subject?.utf8.count ?? 0
        for address in message.from + message.sender + message.to + message.cc + message.bcc + message.replyTo {
            sink &+= address.description.utf8.count
        }
        sink &+= message.messageID?.utf8.count ?? 0
        sink &+= Int(truncatingIfNeeded: message.date?.secondsSince1970 ?? 0)
        sink &+= message.bestText?.utf8.count ?? 0
        sink &+= message.html?.utf8.count ?? 0
        sink &+= message.attachments.count + message.inlineParts.count
        for part in message.parts {
            sink &+= part.text?.utf8.count ?? 0
            sink &+= part.filename?.utf8.count ?? 0
            sink &+= part.isAttachment ? 1 : 0
            FuzzCheck.expect(message.part(part.partNumber) != nil, "part \(part.partNumber) cannot be found by its number")
            if depth < 3, let embedded = part.embeddedMessage(limits: limits) {
                touch(embedded, limits: limits, depth: depth + 1)
            }
        }
        blackHole(sink)
    }

    @inline(never)
    static func blackHole(_ value: Int) {
        if value == 0x5EED_F00D { print("") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzMIME.run(FuzzInput(data, size).bytes)
    return 0
}

#if !FUZZING
/// Without libFuzzer (a plain `swift build`) the target replays the files it is given; see `FuzzReplay`.
@main enum FuzzMIMEReplay {
    static func main() { FuzzReplay.main(FuzzMIME.run) }
}
#endif
