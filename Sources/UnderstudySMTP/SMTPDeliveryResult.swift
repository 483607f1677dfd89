/// What the edge reports after it handled an `SMTPAction.deliver`.
public enum SMTPDeliveryResult: Sendable, Hashable {
    /// The message is kept: the client gets `250 2.0.0 Ok: queued as <id>`.
    case stored(id: String)
    /// The message could not be kept: the client gets `451 4.3.0 <reason>` and may retry.
    case failed(reason: String)
    /// The store's disk is full: the client gets `452 4.3.1 Insufficient system storage` and may retry.
    case insufficientStorage(reason: String)
}
