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
            case .failure(let error):
                // The client hears 452 or 451 and retries; whoever runs the server needs the cause.
                StandardOutput.write(2, "understudy: refused a message from <\(envelope.mailFrom)> "
                                     + "(SMTP \(error.isOutOfSpace ? "452" : "451")): \(error)\n")
                completion(error.isOutOfSpace ? .insufficientStorage(reason: error.description) : .failed(reason: error.description))
            }
        }
    }
}
