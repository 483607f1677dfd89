/// Something that happened while the connection consumed network bytes.
public enum TLSEvent: Sendable {
    /// The handshake finished; `writePlaintext` data now goes out.
    case handshakeCompleted
    /// Decrypted application data is waiting in `readPlaintext()`.
    case plaintextAvailable
    /// The peer sent close_notify: no more data will come (read what is buffered, then `close()`).
    case closeNotifyReceived
    /// The handshake or the connection failed (the error carries the alert). Drain once more to
    /// send the alert this side wrote, then close the socket.
    case failed(TLSError)
}
