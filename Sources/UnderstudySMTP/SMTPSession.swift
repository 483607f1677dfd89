/// The server side of one SMTP session (RFC 5321 with PIPELINING, SIZE, 8BITMIME, SMTPUTF8,
/// ENHANCEDSTATUSCODES, AUTH PLAIN/LOGIN, CHUNKING and STARTTLS) as a pure state machine: bytes in,
/// actions out.
///
/// The edge calls `start()` once the connection is accepted, `receive(_:)` with every read, `timedOut()`
/// when `currentTimeout` elapses without input or a time limit (`commandLineTimeLimit`,
/// `messageTimeLimit`) runs out, and `deliveryCompleted(_:)` after each `.deliver`. It
/// performs the returned actions in order. The session never does I/O and never blocks.
///
/// Pipelined input is processed in order; while a delivered message waits for `deliveryCompleted(_:)` the
/// commands behind it stay buffered and unanswered (RFC 2920), so replies always come in command order.
/// The edge should stop reading while `wantsInput` is false; past 1 MiB of buffered input the session
/// answers the pending message, then closes with 421.
public struct SMTPSession: Sendable {
    public let configuration: SMTPConfiguration

    private var input = SMTPInputBuffer()
    private var phase: Phase = .command
    private var started = false
    private var greeting: Greeting?
    private var authenticatedUser: String?
    private var transaction: Transaction?
    private var invalidCommands = 0
    private var junkCommands = 0
    private var inputOverflowed = false
    /// Set by the first accepted MAIL: the idle timeout is `commandTimeout` from then on.
    private var mailAccepted = false
    /// TLS is under the session (after STARTTLS, or an implicit-TLS listener): STARTTLS is no
    /// longer offered, and `requireTLS` is met.
    public private(set) var isTLSActive = false
    /// The budget of the command line being received, while one is (see `commandLineTimeLimit`).
    private var lineLimitID: UInt64?
    /// The budget of the message being received (set at the 354 or the first BDAT).
    private var messageLimitID: UInt64 = 0
    private var lastLimitID: UInt64 = 0

    /// Input buffered while a message waits for `deliveryCompleted(_:)` beyond which the session gives up.
    static let maxBufferedInputWhileDelivering = 1 << 20

    private enum Phase: Sendable {
        case command
        case authPlain
        case authLoginUsername
        case authLoginPassword(username: [UInt8])
        case data(SMTPDotDecoder)
        case chunk(size: Int, remaining: Int, last: Bool, rejection: SMTPReply?)
        case discardingLongLine
        case awaitingDelivery
        case closed
    }

    private struct Greeting: Sendable {
        var name: String
        var extended: Bool
    }

    private struct Transaction: Sendable {
        var reversePath: String
        var recipients: [String] = []
        var declaredSize: Int?
        var bodyType: SMTPBodyType?
        var smtpUTF8 = false
        var usedChunking = false
        var body: SMTPMessageBody
    }

    public init(configuration: SMTPConfiguration) {
        self.configuration = configuration
    }

    // MARK: State the edge reads

    /// The idle timeout that applies now (RFC 5321 4.5.3.2), restarted by every input:
    /// `commandTimeout` while waiting for a command or AUTH response (`commandTimeoutBeforeMail`
    /// until a MAIL is accepted), `dataTimeout` inside DATA or a BDAT chunk, nil while a message
    /// waits for `deliveryCompleted(_:)` (the wait is the server's own) and once closed. Re-read it
    /// after every call. `commandLineTimeLimit` and `messageTimeLimit` bound the total time as well.
    public var currentTimeout: Duration? {
        switch phase {
        case .command, .authPlain, .authLoginUsername, .authLoginPassword, .discardingLongLine:
            return mailAccepted ? configuration.commandTimeout : configuration.commandTimeoutBeforeMail
        case .data, .chunk:
            return configuration.dataTimeout
        case .awaitingDelivery, .closed:
            return nil
        }
    }

    /// The budget of the command line (or AUTH response) whose first bytes arrived and whose line
    /// end has not: `commandLineTimeLimit`, however its bytes trickle in. Re-read it after every call.
    public var commandLineTimeLimit: SMTPTimeLimit? {
        lineLimitID.map { SMTPTimeLimit(id: $0, duration: configuration.commandLineTimeLimit) }
    }

    /// The budget of the message being received, from the 354 or its first BDAT until its end
    /// (BDAT commands between chunks included): `messageTimeLimit`. Re-read it after every call.
    public var messageTimeLimit: SMTPTimeLimit? {
        switch phase {
        case .data, .chunk: break
        case .command, .discardingLongLine: guard transaction?.usedChunking == true else { return nil }
        default: return nil
        }
        return SMTPTimeLimit(id: messageLimitID, duration: configuration.messageTimeLimit)
    }

    /// False while a message waits for `deliveryCompleted(_:)` (input would only be buffered) and once closed.
    public var wantsInput: Bool {
        switch phase {
        case .awaitingDelivery, .closed: return false
        default: return true
        }
    }

    /// True after the session emitted `.close`.
    public var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    // MARK: Events from the edge

    /// The connection is TLS from its start (SMTPS, RFC 8314): call before `start()`.
    public mutating func tlsIsActive() {
        isTLSActive = true
    }

    /// The 220 greeting. Call once, before any `receive(_:)`; later calls return nothing.
    public mutating func start() -> [SMTPAction] {
        guard !started, !isClosed else { return [] }
        started = true
        var out = Output()
        out.reply(SMTPReply(220, nil, "\(configuration.hostname) ESMTP Understudy"))
        return out.finish()
    }

    /// Feeds bytes read from the client, split anywhere.
    public mutating func receive(_ bytes: some Collection<UInt8>) -> [SMTPAction] {
        switch phase {
        case .closed:
            return []
        case .awaitingDelivery:
            if input.unreadCount + bytes.count > Self.maxBufferedInputWhileDelivering {
                inputOverflowed = true
            } else {
                input.append(bytes)
            }
            return []
        default:
            input.append(bytes)
            var out = Output()
            process(&out)
            updateLineLimit()
            return out.finish()
        }
    }

    private mutating func nextLimitID() -> UInt64 {
        lastLimitID += 1
        return lastLimitID
    }

    /// A command line is being received while bytes are buffered in a line phase; its budget
    /// starts with its first byte (`process` clears it at each line end).
    private mutating func updateLineLimit() {
        switch phase {
        case .command, .authPlain, .authLoginUsername, .authLoginPassword, .discardingLongLine:
            if input.isEmpty {
                lineLimitID = nil
            } else if lineLimitID == nil {
                lineLimitID = nextLimitID()
            }
        default:
            lineLimitID = nil
        }
    }

    /// What the client hears for a delivery's outcome.
    static func reply(for result: SMTPDeliveryResult) -> SMTPReply {
        switch result {
        case .stored(let id):
            SMTPReply(250, "2.0.0", "Ok: queued as \(printable(id, limit: 128))")
        case .failed(let reason):
            SMTPReply(451, "4.3.0", printable(reason, limit: 400).isEmpty ? "Temporary failure storing the message, try again"
                                                                           : printable(reason, limit: 400))
        case .insufficientStorage:
            // RFC 3463 4.3.1 "mail system full"; the reason (a path) is for the server's log.
            SMTPReply(452, "4.3.1", "Insufficient system storage, try again later")
        }
    }

    /// Answers the message of the last `.deliver`, then processes the commands pipelined behind it.
    /// Does nothing if no delivery is pending.
    public mutating func deliveryCompleted(_ result: SMTPDeliveryResult) -> [SMTPAction] {
        guard case .awaitingDelivery = phase else { return [] }
        var out = Output()
        if case .stored = result { junkCommands = 0 }
        out.reply(Self.reply(for: result))
        phase = .command
        if inputOverflowed {
            close(&out, SMTPReply(421, "4.7.0", "\(configuration.hostname) Too much pipelined input, closing connection"))
        } else {
            process(&out)
            updateLineLimit()
        }
        return out.finish()
    }

    /// The edge's timer for `currentTimeout` fired: 421 4.4.2 and close.
    public mutating func timedOut() -> [SMTPAction] {
        guard !isClosed else { return [] }
        var out = Output()
        close(&out, SMTPReply(421, "4.4.2", "\(configuration.hostname) Timeout waiting for the client, closing connection"))
        return out.finish()
    }

    // MARK: Input processing

    private mutating func process(_ out: inout Output) {
        while true {
            switch phase {
            case .closed, .awaitingDelivery:
                return
            case .discardingLongLine:
                guard input.discardLine() else { return }
                lineLimitID = nil
                phase = .command
                reject(&out, SMTPReply(500, "5.5.2", "Line too long (limit \(configuration.effectiveMaxCommandLineLength) octets)"))
            case .command, .authPlain, .authLoginUsername, .authLoginPassword:
                switch input.nextLine(limit: SMTPConfiguration.maxAuthLineLength) {
                case .incomplete:
                    return
                case .tooLong:
                    phase = .discardingLongLine
                case .complete(let line):
                    lineLimitID = nil
                    handleLine(line, &out)
                }
            case .data(var decoder):
                guard !input.isEmpty, var current = transaction else { return }
                transaction = nil  // so the body below is uniquely referenced and grows in place
                var finished = false
                input.consume { buffer in
                    let result = decoder.decode(buffer, into: &current.body)
                    finished = result.finished
                    return result.consumed
                }
                transaction = current
                if finished {
                    finishMessage(&out)
                } else {
                    phase = .data(decoder)
                    return
                }
            case .chunk(let size, let remaining, let last, let rejection):
                if remaining > 0 {
                    guard !input.isEmpty else { return }
                    var taken = 0
                    if rejection == nil, var current = transaction {
                        transaction = nil  // so the body below is uniquely referenced and grows in place
                        input.consume { buffer in
                            taken = Swift.min(remaining, buffer.count)
                            current.body.append(UnsafeBufferPointer(rebasing: buffer[..<taken]))
                            return taken
                        }
                        transaction = current
                    } else {
                        input.consume { buffer in
                            taken = Swift.min(remaining, buffer.count)
                            return taken
                        }
                    }
                    if taken < remaining {
                        phase = .chunk(size: size, remaining: remaining - taken, last: last, rejection: rejection)
                        return
                    }
                }
                finishChunk(size: size, last: last, rejection: rejection, &out)
            }
        }
    }

    private mutating func handleLine(_ line: [UInt8], _ out: inout Output) {
        switch phase {
        case .authPlain:
            phase = .command
            authPlainResponse(line[...], &out)
        case .authLoginUsername:
            phase = .command
            authLoginUsername(line[...], &out)
        case .authLoginPassword(let username):
            phase = .command
            authLoginPassword(username: username, line[...], &out)
        default:
            handleCommand(line, &out)
        }
    }

    // MARK: Commands

    private mutating func handleCommand(_ line: [UInt8], _ out: inout Output) {
        let space = line.firstIndex(of: UInt8(ascii: " ")) ?? line.endIndex
        let verb = String(decoding: line[..<space].prefix(16).map(SMTPPathParser.asciiUpper), as: UTF8.self)
        var argument = line[Swift.min(space + 1, line.endIndex)...]
        while let last = argument.last, last == UInt8(ascii: " ") || last == 9 { argument = argument.dropLast() }

        if verb != "AUTH" && line.count + 2 > configuration.effectiveMaxCommandLineLength {
            reject(&out, SMTPReply(500, "5.5.2", "Line too long (limit \(configuration.effectiveMaxCommandLineLength) octets)"))
            return
        }
        switch verb {
        case "EHLO", "HELO": hello(extended: verb == "EHLO", argument, &out)
        case "MAIL", "RCPT", "DATA", "BDAT", "AUTH":
            if let refusal = tlsRequiredRejection() { return reject(&out, refusal) }
            switch verb {
            case "MAIL": mail(argument, &out)
            case "RCPT": recipient(argument, &out)
            case "DATA": data(argument, &out)
            case "BDAT": bdat(argument, &out)
            default: auth(argument, &out)
            }
        case "RSET":
            guard argument.isEmpty else { return reject(&out, SMTPReply(501, "5.5.4", "Syntax: RSET")) }
            transaction = nil
            junk(&out, SMTPReply(250, "2.0.0", "Ok"))
        case "NOOP":
            junk(&out, SMTPReply(250, "2.0.0", "Ok"))
        case "QUIT":
            guard argument.isEmpty else { return reject(&out, SMTPReply(501, "5.5.4", "Syntax: QUIT")) }
            close(&out, SMTPReply(221, "2.0.0", "\(configuration.hostname) Bye"))
        case "VRFY":
            guard !argument.isEmpty else { return reject(&out, SMTPReply(501, "5.5.4", "Syntax: VRFY <address>")) }
            junk(&out, SMTPReply(252, "2.5.0", "Cannot VRFY user, but will accept message and attempt delivery"))
        case "HELP":
            junk(&out, SMTPReply(214, "2.0.0", "Commands: EHLO HELO MAIL RCPT DATA BDAT RSET NOOP QUIT VRFY HELP AUTH"
                                 + (configuration.offersTLS ? " STARTTLS" : "")))
        case "STARTTLS" where configuration.offersTLS: startTLS(argument, &out)
        case "STARTTLS", "EXPN", "ETRN", "TURN", "ATRN", "SEND", "SOML", "SAML", "VERB":
            reject(&out, SMTPReply(502, "5.5.1", "\(verb) not implemented"))
        case "":
            reject(&out, SMTPReply(500, "5.5.2", "Empty command line"))
        default:
            reject(&out, SMTPReply(500, "5.5.1", "Command unrecognized"))
        }
    }

    private mutating func hello(extended: Bool, _ argument: ArraySlice<UInt8>, _ out: inout Output) {
        let nameBytes = argument.prefix { $0 != UInt8(ascii: " ") }
        guard !nameBytes.isEmpty, let name = String(validating: nameBytes, as: UTF8.self),
              !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            return reject(&out, SMTPReply(501, "5.5.4", "Syntax: \(extended ? "EHLO" : "HELO") hostname"))
        }
        transaction = nil  // RFC 5321 4.1.4: EHLO/HELO in a session resets it like RSET
        greeting = Greeting(name: name, extended: extended)
        let first = "\(configuration.hostname) greets \(name)"
        guard extended else { return out.reply(SMTPReply(250, nil, first)) }
        out.reply(SMTPReply(250, nil, lines: [
            first,
            "PIPELINING",
            "SIZE \(configuration.effectiveMaxMessageSize)",
            "8BITMIME",
            "SMTPUTF8",
            "ENHANCEDSTATUSCODES",
            "AUTH PLAIN LOGIN",
            "CHUNKING",
        ] + (configuration.offersTLS && !isTLSActive ? ["STARTTLS"] : [])))
    }

    /// RFC 3207: 220, then TLS; everything known before it is forgotten (the client greets again)
    /// and what was pipelined behind the command is discarded, never read as if it came over TLS.
    private mutating func startTLS(_ argument: ArraySlice<UInt8>, _ out: inout Output) {
        guard argument.isEmpty else { return reject(&out, SMTPReply(501, "5.5.4", "Syntax: STARTTLS")) }
        guard !isTLSActive else { return reject(&out, SMTPReply(503, "5.5.1", "TLS is already active")) }
        guard transaction == nil else { return reject(&out, SMTPReply(503, "5.5.1", "STARTTLS not allowed during a mail transaction")) }
        out.reply(SMTPReply(220, "2.0.0", "Ready to start TLS"))
        input.removeAll()
        greeting = nil
        authenticatedUser = nil
        isTLSActive = true
        out.emit(.startTLS)
    }

    /// 530 when `requireTLS` holds and TLS is not active yet.
    private func tlsRequiredRejection() -> SMTPReply? {
        guard configuration.requireTLS, configuration.offersTLS, !isTLSActive else { return nil }
        return SMTPReply(530, "5.7.0", "Must issue a STARTTLS command first")
    }

    private mutating func mail(_ argument: ArraySlice<UInt8>, _ out: inout Output) {
        guard greeting != nil else { return reject(&out, SMTPReply(503, "5.5.1", "Send EHLO or HELO first")) }
        guard transaction == nil else {
            return reject(&out, SMTPReply(503, "5.5.1", "Nested MAIL command: send RSET to abort the current transaction"))
        }
        if configuration.requireAuthentication && authenticatedUser == nil {
            return reject(&out, SMTPReply(530, "5.7.0", "Authentication required: send AUTH first"))
        }
        do throws(SMTPReply) {
            let (path, parameters) = try SMTPPathParser.parse(argument, role: .sender)
            var new = Transaction(reversePath: path.mailbox, body: SMTPMessageBody(limit: configuration.effectiveMaxMessageSize, expectedSize: nil))
            var seen: Set<String> = []
            for (key, value) in parameters {
                guard seen.insert(key).inserted else { throw SMTPReply(501, "5.5.4", "Duplicate parameter \(key)") }
                switch key {
                case "SIZE":
                    guard let value, value.count <= 18, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                          let size = Int(String(decoding: value, as: UTF8.self))
                    else { throw SMTPReply(501, "5.5.4", "Syntax: SIZE=<number of octets>") }
                    guard size <= configuration.effectiveMaxMessageSize else {
                        // A limit, not a client mistake: not counted as an invalid command.
                        out.reply(SMTPReply(552, "5.3.4", "Message size exceeds fixed maximum message size (\(configuration.effectiveMaxMessageSize) octets)"))
                        return
                    }
                    new.declaredSize = size
                case "BODY":
                    let text = value.map { String(decoding: $0.map(SMTPPathParser.asciiUpper), as: UTF8.self) }
                    guard let text, let type = SMTPBodyType(rawValue: text) else {
                        throw SMTPReply(501, "5.5.4", "Syntax: BODY=7BIT or BODY=8BITMIME")
                    }
                    new.bodyType = type
                case "SMTPUTF8":
                    guard value == nil else { throw SMTPReply(501, "5.5.4", "SMTPUTF8 takes no value") }
                    new.smtpUTF8 = true
                case "AUTH":
                    // RFC 4954 section 5: the original submitter, informational for a final destination.
                    guard value != nil else { throw SMTPReply(501, "5.5.4", "Syntax: AUTH=<xtext> or AUTH=<>") }
                default:
                    throw SMTPReply(555, "5.5.4", "Unsupported MAIL parameter \(key)")
                }
            }
            new.body = SMTPMessageBody(limit: configuration.effectiveMaxMessageSize, expectedSize: new.declaredSize)
            transaction = new
            mailAccepted = true
            out.reply(SMTPReply(250, "2.1.0", "Sender ok"))
        } catch {
            reject(&out, error)
        }
    }

    private mutating func recipient(_ argument: ArraySlice<UInt8>, _ out: inout Output) {
        guard greeting != nil else { return reject(&out, SMTPReply(503, "5.5.1", "Send EHLO or HELO first")) }
        guard var current = transaction else { return reject(&out, SMTPReply(503, "5.5.1", "Send MAIL first")) }
        guard !current.usedChunking else { return reject(&out, SMTPReply(503, "5.5.1", "RCPT not allowed after BDAT")) }
        do throws(SMTPReply) {
            let (path, parameters) = try SMTPPathParser.parse(argument, role: .recipient)
            if let (key, _) = parameters.first { throw SMTPReply(555, "5.5.4", "Unsupported RCPT parameter \(key)") }
            guard current.recipients.count < configuration.effectiveMaxRecipients else {
                // RFC 5321 4.5.3.1.10: the client sends the rest in another transaction. Not an error.
                out.reply(SMTPReply(452, "4.5.3", "Too many recipients (limit \(configuration.effectiveMaxRecipients))"))
                return
            }
            current.recipients.append(path.mailbox)
            transaction = current
            out.reply(SMTPReply(250, "2.1.5", "Recipient ok"))
        } catch {
            reject(&out, error)
        }
    }

    private mutating func data(_ argument: ArraySlice<UInt8>, _ out: inout Output) {
        guard argument.isEmpty else { return reject(&out, SMTPReply(501, "5.5.4", "Syntax: DATA")) }
        if let rejection = transferRejection(chunking: false) { return reject(&out, rejection) }
        phase = .data(SMTPDotDecoder())
        messageLimitID = nextLimitID()
        out.reply(SMTPReply(354, nil, "End data with <CR><LF>.<CR><LF>"))
    }

    private mutating func bdat(_ argument: ArraySlice<UInt8>, _ out: inout Output) {
        let words = argument.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard (1...2).contains(words.count), words[0].count <= 18,
              words[0].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let size = Int(String(decoding: words[0], as: UTF8.self)),
              words.count == 1 || words[1].map(SMTPPathParser.asciiUpper) == Array("LAST".utf8)
        else {
            return reject(&out, SMTPReply(501, "5.5.4", "Syntax: BDAT <octets> [LAST]"))
        }
        // RFC 3030 section 2: the chunk is read even when the command is refused; the reply follows it.
        let rejection = transferRejection(chunking: true)
        if rejection == nil, transaction?.usedChunking == false {
            transaction?.usedChunking = true
            messageLimitID = nextLimitID()
        }
        phase = .chunk(size: size, remaining: size, last: words.count == 2, rejection: rejection)
    }

    private func transferRejection(chunking: Bool) -> SMTPReply? {
        guard greeting != nil else { return SMTPReply(503, "5.5.1", "Send EHLO or HELO first") }
        guard let current = transaction else { return SMTPReply(503, "5.5.1", "Send MAIL first") }
        guard !current.recipients.isEmpty else { return SMTPReply(503, "5.5.1", "Need RCPT: send RCPT TO first") }
        if !chunking && current.usedChunking { return SMTPReply(503, "5.5.1", "DATA not allowed after BDAT") }
        return nil
    }

    private mutating func finishChunk(size: Int, last: Bool, rejection: SMTPReply?, _ out: inout Output) {
        phase = .command
        if let rejection { return reject(&out, rejection) }
        if last {
            finishMessage(&out)
        } else {
            out.reply(SMTPReply(250, "2.0.0", "\(size) octets received"))
        }
    }

    private mutating func finishMessage(_ out: inout Output) {
        guard var current = transaction, let greeting else {
            phase = .command
            return
        }
        transaction = nil
        if current.body.exceedsLimit {
            phase = .command
            out.reply(SMTPReply(552, "5.3.4", "Message size exceeds fixed maximum message size (\(configuration.effectiveMaxMessageSize) octets)"))
            return
        }
        var envelope = SMTPEnvelope(
            heloName: greeting.name, usedEHLO: greeting.extended, authenticatedUser: authenticatedUser,
            mailFrom: current.reversePath, recipients: current.recipients, declaredSize: current.declaredSize,
            bodyType: current.bodyType, smtpUTF8: current.smtpUTF8, usedChunking: current.usedChunking,
            data: current.body.takeBytes())
        envelope.overTLS = isTLSActive
        phase = .awaitingDelivery
        out.emit(.deliver(envelope))
    }

    // MARK: AUTH (RFC 4954, PLAIN RFC 4616, LOGIN draft-murchison-sasl-login)

    private static let usernamePrompt = SMTPBase64.encode("Username:".utf8)
    private static let passwordPrompt = SMTPBase64.encode("Password:".utf8)

    private mutating func auth(_ argument: ArraySlice<UInt8>, _ out: inout Output) {
        guard greeting != nil else { return reject(&out, SMTPReply(503, "5.5.1", "Send EHLO first")) }
        guard authenticatedUser == nil else { return reject(&out, SMTPReply(503, "5.5.1", "Already authenticated")) }
        guard transaction == nil else { return reject(&out, SMTPReply(503, "5.5.1", "AUTH not allowed during a mail transaction")) }
        let words = argument.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard (1...2).contains(words.count) else { return reject(&out, SMTPReply(501, "5.5.4", "Syntax: AUTH <mechanism> [initial-response]")) }
        let mechanism = String(decoding: words[0].prefix(32).map(SMTPPathParser.asciiUpper), as: UTF8.self)
        let initial = words.count == 2 ? words[1] : nil
        switch mechanism {
        case "PLAIN":
            if let initial {
                authPlainResponse(initial, &out)
            } else {
                phase = .authPlain
                out.reply(SMTPReply(334, nil, ""))
            }
        case "LOGIN":
            if let initial {
                authLoginUsername(initial, &out)
            } else {
                phase = .authLoginUsername
                out.reply(SMTPReply(334, nil, Self.usernamePrompt))
            }
        default:
            reject(&out, SMTPReply(504, "5.5.4", "Unrecognized authentication type: use PLAIN or LOGIN"))
        }
    }

    /// Decodes one client SASL response; nil after replying 501 (cancelled or bad base64).
    private mutating func saslResponse(_ response: ArraySlice<UInt8>, _ out: inout Output) -> [UInt8]? {
        if response.elementsEqual("*".utf8) {
            reject(&out, SMTPReply(501, "5.7.0", "Authentication cancelled"))
            return nil
        }
        if response.elementsEqual("=".utf8) { return [] }  // RFC 4954: "=" is an empty initial response
        guard let decoded = SMTPBase64.decode(response) else {
            reject(&out, SMTPReply(501, "5.5.2", "Invalid base64 in the AUTH response"))
            return nil
        }
        return decoded
    }

    private mutating func authPlainResponse(_ response: ArraySlice<UInt8>, _ out: inout Output) {
        guard let message = saslResponse(response, &out) else { return }
        // authzid NUL authcid NUL passwd (RFC 4616 section 2)
        let parts = message.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty else {
            return reject(&out, SMTPReply(501, "5.5.2", "Malformed PLAIN response: expected authzid NUL user NUL password"))
        }
        if !parts[0].isEmpty && !parts[0].elementsEqual(parts[1]) {
            return reject(&out, SMTPReply(535, "5.7.8", "Authentication credentials invalid: cannot act as another user"))
        }
        completeAuthentication(username: Array(parts[1]), password: Array(parts[2]), &out)
    }

    private mutating func authLoginUsername(_ response: ArraySlice<UInt8>, _ out: inout Output) {
        guard let username = saslResponse(response, &out) else { return }
        phase = .authLoginPassword(username: username)
        out.reply(SMTPReply(334, nil, Self.passwordPrompt))
    }

    private mutating func authLoginPassword(username: [UInt8], _ response: ArraySlice<UInt8>, _ out: inout Output) {
        guard let password = saslResponse(response, &out) else { return }
        completeAuthentication(username: username, password: password, &out)
    }

    private mutating func completeAuthentication(username: [UInt8], password: [UInt8], _ out: inout Output) {
        let accepted = configuration.credentials?.matches(username: username, password: password) ?? !username.isEmpty
        guard accepted, let name = String(validating: username, as: UTF8.self) else {
            return reject(&out, SMTPReply(535, "5.7.8", "Authentication credentials invalid"))
        }
        authenticatedUser = name
        out.reply(SMTPReply(235, "2.7.0", "Authentication successful"))
    }

    // MARK: Replies

    /// Replies to a client mistake and counts it; at `maxInvalidCommands` the session says 421 and closes.
    private mutating func reject(_ out: inout Output, _ reply: SMTPReply) {
        out.reply(reply)
        invalidCommands += 1
        if invalidCommands >= configuration.effectiveMaxInvalidCommands {
            close(&out, SMTPReply(421, "4.7.0", "\(configuration.hostname) Too many errors, closing connection"))
        }
    }

    /// Replies to a command that moves nothing forward; past `maxJunkCommands` the session says 421 and closes.
    private mutating func junk(_ out: inout Output, _ reply: SMTPReply) {
        junkCommands += 1
        if junkCommands > configuration.effectiveMaxJunkCommands {
            close(&out, SMTPReply(421, "4.7.0", "\(configuration.hostname) Too many commands without a message, closing connection"))
        } else {
            out.reply(reply)
        }
    }

    private mutating func close(_ out: inout Output, _ reply: SMTPReply) {
        out.reply(reply)
        out.emit(.close)
        phase = .closed
        transaction = nil
        input.removeAll()
    }

    /// Text from the edge made safe for one reply line.
    private static func printable(_ text: String, limit: Int) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit).map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}

/// Actions of one call, with adjacent replies coalesced into a single `.send`.
private struct Output {
    private var actions: [SMTPAction] = []
    private var pending: [UInt8] = []

    mutating func reply(_ reply: SMTPReply) {
        reply.serialize(into: &pending)
    }

    mutating func emit(_ action: SMTPAction) {
        flush()
        actions.append(action)
    }

    private mutating func flush() {
        if !pending.isEmpty {
            actions.append(.send(pending))
            pending = []
        }
    }

    mutating func finish() -> [SMTPAction] {
        flush()
        return actions
    }
}
