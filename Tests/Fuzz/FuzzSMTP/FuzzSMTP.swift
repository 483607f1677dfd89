import FuzzSupport
import UnderstudySMTP

/// libFuzzer target for `SMTPSession`: the input is what a client sends in one session.
///
/// The session runs as the server drives it (start, receive, deliveryCompleted after each
/// `.deliver`, a timeout at the end) with the input fed whole, cut in two, cut in two with each
/// delivery answered only after the next piece was received (pipelined commands wait behind it),
/// and one byte at a time. The bytes sent, the envelopes delivered and where the session closed
/// must be the same each way. The input also picks small limits and required AUTH
/// (user `user`, password `secret`), and whether every other delivery fails with 451.
enum FuzzSMTP {
    static func run(_ bytes: [UInt8]) {
        let input = FuzzInput(bytes)
        var configuration = SMTPConfiguration(hostname: "mx.fuzz")
        if input.flag(0) {
            configuration.maxMessageSize = 200
            configuration.maxRecipients = 2
            configuration.maxCommandLineLength = 64
            configuration.maxInvalidCommands = 4
            configuration.maxJunkCommands = 3
        }
        if input.flag(1) {
            configuration.credentials = SMTPCredentials(username: "user", password: "secret")
            configuration.requireAuthentication = true
        }
        let failEveryOther = input.flag(2)
        let whole = Transcript(configuration, [bytes[...]], failEveryOther: failEveryOther, deferDelivery: false)
        // The others must send the same bytes, so checking the framing once is enough.
        checkFraming(whole.sends)
        FuzzCheck.same(whole, Transcript(configuration, input.halves, failEveryOther: failEveryOther, deferDelivery: false),
                       "split at \(input.splitPoint)")
        FuzzCheck.same(whole, Transcript(configuration, input.halves, failEveryOther: failEveryOther, deferDelivery: true),
                       "split at \(input.splitPoint), deliveries answered after the next piece")
        FuzzCheck.same(whole, Transcript(configuration, input.bytewise, failEveryOther: failEveryOther, deferDelivery: false),
                       "one byte at a time")
    }
}

/// Everything one run of a session did, in order.
struct Transcript: Equatable, CustomStringConvertible {
    /// Reply bytes, with `[deliver]` and `[close]` where those actions came.
    var log: [UInt8] = []
    var envelopes: [SMTPEnvelope] = []
    /// Each `.send` as it came; not compared, since how replies are grouped into sends depends on the split.
    var sends: [[UInt8]] = []

    init(_ configuration: SMTPConfiguration, _ pieces: [ArraySlice<UInt8>], failEveryOther: Bool, deferDelivery: Bool) {
        var session = SMTPSession(configuration: configuration)
        var pendingDelivery = false
        func perform(_ actions: [SMTPAction]) {
            for action in actions {
                switch action {
                case .send(let bytes):
                    sends.append(bytes)
                    log += bytes
                case .deliver(let envelope):
                    log += Array("[deliver]".utf8)
                    envelopes.append(envelope)
                    FuzzCheck.expect(!session.wantsInput, "the session wants input while a delivery is pending")
                    if deferDelivery {
                        pendingDelivery = true
                    } else {
                        perform(session.deliveryCompleted(result(envelopes.count, failEveryOther)))
                    }
                case .close:
                    log += Array("[close]".utf8)
                    FuzzCheck.expect(session.isClosed, "the session emitted .close but is not closed")
                case .startTLS:
                    // Not offered in this harness's configuration (the TLS layer is not fuzzed here).
                    FuzzCheck.expect(false, "the session asked for TLS it does not offer")
                }
            }
        }
        perform(session.start())
        for piece in pieces {
            perform(session.receive(piece))
            while pendingDelivery {
                pendingDelivery = false
                perform(session.deliveryCompleted(result(envelopes.count, failEveryOther)))
            }
        }
        perform(session.timedOut())
        FuzzCheck.expect(session.isClosed, "the session is still open after timing out")
    }

    private func result(_ count: Int, _ failEveryOther: Bool) -> SMTPDeliveryResult {
        failEveryOther && count % 2 == 0 ? .failed(reason: "disk full\r\n") : .stored(id: "m\(count)")
    }

    static func == (lhs: Transcript, rhs: Transcript) -> Bool {
        lhs.log == rhs.log && lhs.envelopes == rhs.envelopes
    }

    var description: String {
        "\(String(decoding: log, as: UTF8.self).debugDescription) envelopes=\(envelopes.count)"
    }
}

extension FuzzSMTP {
    /// Each send is whole reply lines: `ddd` then space or dash, ending in CRLF, no CR or LF inside.
    static func checkFraming(_ sends: [[UInt8]]) {
        for bytes in sends { checkFraming(bytes) }
    }

    static func checkFraming(_ bytes: [UInt8]) {
        FuzzCheck.expect(bytes.count >= 6 && bytes.suffix(2) == [13, 10], "a send does not end in CRLF: \(bytes)")
        for line in bytes.split(separator: 10) {
            FuzzCheck.expect(line.count >= 5 && line.last == 13, "reply line without CRLF: \(Array(line))")
            let code = line.prefix(3)
            FuzzCheck.expect(code.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }, "reply line without a code: \(Array(line))")
            let separator = line[line.startIndex + 3]
            FuzzCheck.expect(separator == 0x20 || separator == 0x2D, "reply code not followed by space or dash")
            FuzzCheck.expect(!line.dropLast().contains(13), "CR inside a reply line: \(Array(line))")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzSMTP.run(FuzzInput(data, size).bytes)
    return 0
}

#if !FUZZING
/// Without libFuzzer (a plain `swift build`) the target replays the files it is given; see `FuzzReplay`.
@main enum FuzzSMTPReplay {
    static func main() { FuzzReplay.main(FuzzSMTP.run) }
}
#endif
