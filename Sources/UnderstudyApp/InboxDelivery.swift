import UnderstudyInbox
import UnderstudySMTP
import UnderstudySMTPServer

/// Hands messages from the SMTP sessions to the inbox; the session's 250 waits until the message
/// is in the store's log (and, past the inbox's backlog bound, indexed).
struct InboxDelivery: SMTPDeliveryHandler {
    let inbox: Inbox
    /// Told of every message, stored or refused (nil: no request log).
    var log: RequestLog? = nil

    func deliver(_ envelope: SMTPEnvelope, completion: @escaping @Sendable (SMTPDeliveryResult) -> Void) {
        let started = RequestLog.monotonicNow()
        let log = self.log
        inbox.accept(raw: envelope.data, envelopeFrom: envelope.mailFrom, envelopeTo: envelope.recipients) { result in
            let outcome: SMTPDeliveryResult
            switch result {
            case .success(let id): outcome = .stored(id: id)
            case .failure(let error):
                // The client hears 452 or 451 and retries; whoever runs the server needs the cause.
                StandardOutput.write(2, "understudy: error: refused a message from <\(envelope.mailFrom)> "
                                     + "(SMTP \(error.isOutOfSpace ? "452" : "451")): \(error)\n")
                outcome = error.isOutOfSpace ? .insufficientStorage(reason: error.description) : .failed(reason: error.description)
            }
            completion(outcome)
            guard let log else { return }
            let id: String? = if case .stored(let id) = outcome { id } else { nil }
            log.mail(RequestLog.MailEntry(from: envelope.mailFrom, recipients: envelope.recipients, size: envelope.data.count,
                                          id: id, reply: outcome.replyText, durationNanoseconds: RequestLog.monotonicNow() &- started))
        }
    }
}
