/// One received message: the envelope the client gave and the message data.
public struct SMTPEnvelope: Sendable, Equatable {
    /// The name the client gave in EHLO or HELO.
    public var heloName: String
    /// True when the client greeted with EHLO (extended SMTP).
    public var usedEHLO: Bool
    /// The user named by a successful AUTH in this session, if any.
    public var authenticatedUser: String?
    /// The reverse-path of MAIL FROM, without angle brackets; empty for the null path `<>` (bounces).
    public var mailFrom: String
    /// The forward-paths of the accepted RCPT TO commands, in order, without angle brackets.
    public var recipients: [String]
    /// The `SIZE=` the client declared on MAIL, if any (RFC 1870).
    public var declaredSize: Int?
    /// The `BODY=` the client declared on MAIL, if any (RFC 6152).
    public var bodyType: SMTPBodyType?
    /// True when MAIL carried `SMTPUTF8` (RFC 6531).
    public var smtpUTF8: Bool
    /// True when the data came in BDAT chunks (RFC 3030) rather than DATA.
    public var usedChunking: Bool
    /// The message: for DATA dot-unstuffed, every line ending normalised to CRLF; for BDAT the exact octets sent.
    public var data: [UInt8]
    /// True when the message came over TLS (STARTTLS or an implicit-TLS port).
    public var overTLS = false

    public init(
        heloName: String, usedEHLO: Bool, authenticatedUser: String?, mailFrom: String, recipients: [String],
        declaredSize: Int?, bodyType: SMTPBodyType?, smtpUTF8: Bool, usedChunking: Bool, data: [UInt8]
    ) {
        self.heloName = heloName
        self.usedEHLO = usedEHLO
        self.authenticatedUser = authenticatedUser
        self.mailFrom = mailFrom
        self.recipients = recipients
        self.declaredSize = declaredSize
        self.bodyType = bodyType
        self.smtpUTF8 = smtpUTF8
        self.usedChunking = usedChunking
        self.data = data
    }

    /// The protocol name for a Received header's `with` clause (RFC 3848, RFC 6531 section 3.7.4):
    /// SMTP, ESMTP, ESMTPS, ESMTPA, ESMTPSA, and the UTF8SMTP forms.
    public var receivedProtocol: String {
        guard usedEHLO else { return "SMTP" }
        let base = (smtpUTF8 ? "UTF8SMTP" : "ESMTP") + (overTLS ? "S" : "")
        return authenticatedUser == nil ? base : base + "A"
    }
}
