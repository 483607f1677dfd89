import UnderstudyInbox
import UnderstudySMTP
import UnderstudySMTPServer

/// Hands messages from the SMTP sessions to the inbox; the session's 250 waits until the message
/// is in the store's log (and, past the inbox's backlog bound, indexed).
struct InboxDelivery: SMTPDeliveryHandler {
    let inbox: Inbox

    func deliver(_ envelope: SMTPEnvelope, completion: @escaping @Sendable (SMTPDeliveryResult) -> Void) {
        inbox.accept(raw: envelope.data, envelopeFrom: envelope.mailFrom, envelopeTo: envelope.recipients) { result in
            switch result {
            case .success(let id): completion(.stored(id: id))
            case .failure(let error): completion(.failed(reason: error.description))
            }
        }
    }
}
