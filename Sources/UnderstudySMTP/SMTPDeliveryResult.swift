/// What the edge reports after it handled an `SMTPAction.deliver`.
public enum SMTPDeliveryResult: Sendable, Hashable {
    /// The message is kept: the client gets `250 2.0.0 Ok: queued as <id>`.
    case stored(id: String)
    /// The message could not be kept: the client gets `451 4.3.0 <reason>` and may retry.
    case failed(reason: String)
    /// The store's disk is full: the client gets `452 4.3.1 Insufficient system storage` and may retry.
    case insufficientStorage(reason: String)
}

extension SMTPDeliveryResult {
    /// The reply the client gets for this outcome, as one line without CRLF (for logs).
    public var replyText: String {
        String(decoding: SMTPSession.reply(for: self).bytes.dropLast(2), as: UTF8.self)
    }
}
