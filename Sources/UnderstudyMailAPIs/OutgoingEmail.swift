import UnderstudyHTTP
import UnderstudyInbox
import UnderstudyMIME

/// One message an email API request asks to send: what to store and its envelope.
struct OutgoingEmail: Sendable {
    var raw: [UInt8]
    var envelopeFrom: String
    var recipients: [String]
    /// The id the provider's answer names this message by.
    var providerID: String
}

extension MIMEComposition {
    /// The message as stored: its bytes, with the API it came through in the source header.
    func outgoing(source: String, envelopeFrom: String, recipients: [String], providerID: String) -> OutgoingEmail {
        var copy = self
        // The request's own headers cannot claim another source.
        copy.headers.removeAll { $0.name.lowercased() == IncomingMessage.sourceHeader.lowercased() }
        copy.headers.append((IncomingMessage.sourceHeader, source))
        return OutgoingEmail(raw: copy.render(), envelopeFrom: envelopeFrom, recipients: recipients, providerID: providerID)
    }
}
