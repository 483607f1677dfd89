import UnderstudyIO
import UnderstudySMTP

/// Where accepted messages go. `completion` may run on any thread; the session answers the
/// client (250 or 451) only when it runs, so a 250 means the message is stored.
public protocol SMTPDeliveryHandler: Sendable {
    func deliver(_ envelope: SMTPEnvelope, completion: @escaping @Sendable (SMTPDeliveryResult) -> Void)
}
