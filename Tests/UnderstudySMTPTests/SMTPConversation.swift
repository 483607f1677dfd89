import Testing
@testable import UnderstudySMTP

/// How a conversation's client bytes reach the session: as the script wrote them, one byte per
/// `receive`, or everything up to the next timeout in one pipelined `receive`. The session must
/// produce the same transcript for all three.
enum Feeding: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case asWritten, byteAtATime, oneChunk

    var testDescription: String { rawValue }
}

/// One line of a scripted conversation.
enum Step: Sendable {
    /// A client line; CRLF is appended.
    case client(String)
    /// Client bytes sent exactly as given.
    case raw([UInt8])
    /// An expected reply line; CRLF is appended.
    case server(String)
    /// An expected `.deliver`, which the edge answers at once with this result.
    case delivered(SMTPDeliveryResult)
    /// An expected `.close`.
    case closed
    /// An expected `.startTLS`.
    case startedTLS
    /// The edge's timer fires.
    case timeout
}

/// Runs a scripted conversation against a session and records what it did as one log:
/// reply bytes as text, `[deliver]` and `[close]` where those actions came.
struct Conversation {
    var configuration: SMTPConfiguration
    var steps: [Step]

    /// The script is given in parts (greeting, ehlo(), [...], quit) rather than joined with `+`,
    /// which keeps the type checker fast.
    init(_ configuration: SMTPConfiguration, _ parts: [Step]...) {
        self.configuration = configuration
        self.steps = parts.flatMap { $0 }
    }

    init(_ parts: [Step]...) {
        self.configuration = .test
        self.steps = parts.flatMap { $0 }
    }

    var expectedLog: String {
        var log = ""
        for step in steps {
            switch step {
            case .server(let line): log += line + "\r\n"
            case .delivered: log += "[deliver]"
            case .closed: log += "[close]"
            case .startedTLS: log += "[starttls]"
            case .client, .raw, .timeout: break
            }
        }
        return log
    }

    struct Outcome {
        var log = ""
        var envelopes: [SMTPEnvelope] = []
        var session: SMTPSession
    }

    func run(_ feeding: Feeding) -> Outcome {
        var outcome = Outcome(session: SMTPSession(configuration: configuration))
        var results: [SMTPDeliveryResult] = steps.compactMap {
            if case .delivered(let result) = $0 { return result }
            return nil
        }
        func perform(_ actions: [SMTPAction]) {
            for action in actions {
                switch action {
                case .send(let bytes):
                    outcome.log += String(decoding: bytes, as: UTF8.self)
                case .deliver(let envelope):
                    outcome.log += "[deliver]"
                    outcome.envelopes.append(envelope)
                    guard !results.isEmpty else {
                        outcome.log += "[unexpected deliver]"
                        continue
                    }
                    perform(outcome.session.deliveryCompleted(results.removeFirst()))
                case .close:
                    outcome.log += "[close]"
                case .startTLS:
                    outcome.log += "[starttls]"
                }
            }
        }
        perform(outcome.session.start())
        var pending: [UInt8] = []
        func flush() {
            if !pending.isEmpty { perform(outcome.session.receive(pending)) }
            pending = []
        }
        func send(_ bytes: [UInt8]) {
            switch feeding {
            case .asWritten: perform(outcome.session.receive(bytes))
            case .byteAtATime: for byte in bytes { perform(outcome.session.receive(CollectionOfOne(byte))) }
            case .oneChunk: pending += bytes
            }
        }
        for step in steps {
            switch step {
            case .client(let line): send(Array((line + "\r\n").utf8))
            case .raw(let bytes): send(bytes)
            case .timeout:
                flush()
                perform(outcome.session.timedOut())
            case .server, .delivered, .closed, .startedTLS: break
            }
        }
        flush()
        return outcome
    }

    /// Runs with `feeding`, checks the log against the script, and returns the outcome for further checks.
    @discardableResult
    func check(_ feeding: Feeding, sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let outcome = run(feeding)
        #expect(outcome.log == expectedLog, sourceLocation: sourceLocation)
        return outcome
    }
}

extension SMTPConfiguration {
    static var test: SMTPConfiguration { SMTPConfiguration(hostname: "mx.test") }
}

let greeting: [Step] = [.server("220 mx.test ESMTP Understudy")]

func ehlo(_ name: String = "client.test", size: Int = 26_214_400) -> [Step] {
        [
            .client("EHLO \(name)"),
            .server("250-mx.test greets \(name)"),
            .server("250-PIPELINING"),
            .server("250-SIZE \(size)"),
            .server("250-8BITMIME"),
            .server("250-SMTPUTF8"),
            .server("250-ENHANCEDSTATUSCODES"),
            .server("250-AUTH PLAIN LOGIN"),
            .server("250 CHUNKING"),
        ]
    }

let quit: [Step] = [.client("QUIT"), .server("221 2.0.0 mx.test Bye"), .closed]

/// The edge stores the message as `id` and the client hears so.
func queued(_ id: String) -> [Step] {
    [.delivered(.stored(id: id)), .server("250 2.0.0 Ok: queued as \(id)")]
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
