/// What an `SMTPSession` accepts and how long it waits.
///
/// Every limit is clamped to a sane minimum, so no configuration can make the session unbounded.
public struct SMTPConfiguration: Sendable {
    /// The name in the 220 greeting and the EHLO reply. Control characters and spaces are removed.
    public var hostname: String {
        get { storedHostname }
        set { storedHostname = Self.sanitizedHostname(newValue) }
    }

    private var storedHostname: String

    /// Largest message accepted, in octets after dot-unstuffing (advertised as `SIZE`). Default 25 MiB.
    /// A larger `SIZE=` on MAIL gets 552 5.3.4 at once; a larger body is counted and discarded while it
    /// streams in (never buffered past the limit) and gets 552 5.3.4 when it ends.
    public var maxMessageSize: Int = 25 * 1024 * 1024

    /// Recipients per transaction; the next RCPT gets 452 4.5.3 (RFC 5321 4.5.3.1.8). Default 100.
    public var maxRecipients: Int = 100

    /// Longest command line, CRLF included (RFC 5321 4.5.3.1.4: 512). Longer lines get 500 5.5.2.
    /// `AUTH` lines and AUTH responses may be up to 12288 octets (RFC 4954 section 4).
    /// Text lines inside DATA are not limited (RFC 5321 4.5.3.1.6 says 1000): this is a sink, so it
    /// accepts what a stricter server would reject; only the message size is limited.
    public var maxCommandLineLength: Int = 512

    /// Rejected commands (syntax, sequence, unknown, failed AUTH) before 421 4.7.0 and close. Default 20.
    public var maxInvalidCommands: Int = 20

    /// NOOP, RSET, VRFY and HELP commands allowed between two delivered messages before 421 4.7.0 and
    /// close (Postfix's junk command limit): a client stuck in a loop cannot hold a session forever.
    public var maxJunkCommands: Int = 100

    /// nil: any AUTH succeeds and names the user. Set: only this username and password succeed, others get 535 5.7.8.
    public var credentials: SMTPCredentials?

    /// When true, MAIL before a successful AUTH gets 530 5.7.0.
    public var requireAuthentication: Bool = false

    /// Offer STARTTLS (RFC 3207): the edge can put TLS under the session when asked.
    public var offersTLS: Bool = false

    /// When true (and TLS is offered), MAIL, RCPT, DATA, BDAT and AUTH before TLS get 530 5.7.0.
    public var requireTLS: Bool = false

    /// How long the session waits for the next command or AUTH response once a MAIL was accepted
    /// (RFC 5321 4.5.3.2.7: at least 5 minutes).
    public var commandTimeout: Duration = .seconds(300)

    /// The same wait before the session's first accepted MAIL. A sender says EHLO and MAIL right
    /// after the greeting, so a session idle that long only holds a slot (Postfix shortens its
    /// timeout the same way under load). Default 30 s.
    public var commandTimeoutBeforeMail: Duration = .seconds(30)

    /// How long the session waits for the next bytes of a DATA body or BDAT chunk (RFC 5321 4.5.3.2.5: 3 minutes for a block).
    public var dataTimeout: Duration = .seconds(180)

    /// The most time one command line (or AUTH response) may take from its first byte to its line
    /// end, however its bytes trickle in: each byte restarts the idle timeout, this does not
    /// (Postfix's `smtpd_per_request_deadline`). Default 60 s.
    public var commandLineTimeLimit: Duration = .seconds(60)

    /// The most time one message's content may take, from the 354 (or its first BDAT) to its end.
    /// Default 10 minutes (RFC 5321 4.5.3.2.6's DATA termination wait), 25 MiB at 43 KB/s.
    public var messageTimeLimit: Duration = .seconds(600)

    public init(
        hostname: String,
        maxMessageSize: Int = 25 * 1024 * 1024,
        maxRecipients: Int = 100,
        maxCommandLineLength: Int = 512,
        maxInvalidCommands: Int = 20,
        maxJunkCommands: Int = 100,
        credentials: SMTPCredentials? = nil,
        requireAuthentication: Bool = false,
        commandTimeout: Duration = .seconds(300),
        dataTimeout: Duration = .seconds(180),
        commandTimeoutBeforeMail: Duration = .seconds(30),
        commandLineTimeLimit: Duration = .seconds(60),
        messageTimeLimit: Duration = .seconds(600)
    ) {
        self.storedHostname = Self.sanitizedHostname(hostname)
        self.maxMessageSize = maxMessageSize
        self.maxRecipients = maxRecipients
        self.maxCommandLineLength = maxCommandLineLength
        self.maxInvalidCommands = maxInvalidCommands
        self.maxJunkCommands = maxJunkCommands
        self.credentials = credentials
        self.requireAuthentication = requireAuthentication
        self.commandTimeout = commandTimeout
        self.dataTimeout = dataTimeout
        self.commandTimeoutBeforeMail = commandTimeoutBeforeMail
        self.commandLineTimeLimit = commandLineTimeLimit
        self.messageTimeLimit = messageTimeLimit
    }

    // Values as the session uses them: clamped so a zero or negative setting cannot break the protocol.
    var effectiveMaxMessageSize: Int { max(maxMessageSize, 1) }
    var effectiveMaxRecipients: Int { max(maxRecipients, 1) }
    var effectiveMaxCommandLineLength: Int { min(max(maxCommandLineLength, 64), SMTPConfiguration.maxAuthLineLength) }
    var effectiveMaxInvalidCommands: Int { max(maxInvalidCommands, 1) }
    var effectiveMaxJunkCommands: Int { max(maxJunkCommands, 1) }

    /// RFC 4954 section 4: an AUTH command or response line may be 12288 octets long.
    static let maxAuthLineLength = 12288

    private static func sanitizedHostname(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }).prefix(255))
        return cleaned.isEmpty ? "localhost" : cleaned
    }
}
