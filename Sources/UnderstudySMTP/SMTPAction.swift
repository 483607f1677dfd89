/// What the I/O edge must do after feeding an `SMTPSession`, in order.
public enum SMTPAction: Sendable, Equatable {
    /// Write these bytes: one or more complete replies, CRLF-terminated. Replies produced by one call are
    /// coalesced into one `send` when nothing else comes between them.
    case send([UInt8])
    /// A complete message. The session replies nothing more (and processes no pipelined command) until the
    /// edge calls `deliveryCompleted(_:)`.
    case deliver(SMTPEnvelope)
    /// Close the connection once the preceding `send`s are written. The session ignores further input.
    case close
    /// After the preceding `send`s (the 220 to STARTTLS), put TLS under the session: the next bytes
    /// the session receives must be the decrypted ones. What the client pipelined after STARTTLS
    /// was discarded (RFC 3207 §4.2).
    case startTLS
}
