/// The body of a `.stream` reply; implemented by the server. Each write becomes one chunk.
public protocol HTTPBodyWriter: Sendable {
    /// False once the client is gone.
    @discardableResult func write(_ bytes: [UInt8]) -> Bool
    func finish()
    func onClose(_ callback: @escaping @Sendable () -> Void)
    /// Pulls the rest of the body from `next` instead: the server calls it on its event loop each
    /// time the connection's unsent bytes are at or below its low-water mark, one chunk per call,
    /// until it returns nil or an empty array (the end; no `finish()` needed). A throw cuts the
    /// connection (the body is incomplete). Memory stays bounded however slowly the client reads.
    func stream(from next: @escaping @Sendable () throws -> [UInt8]?)
}

extension HTTPBodyWriter {
    /// For writers without flow control (test doubles): takes every chunk at once, then finishes.
    public func stream(from next: @escaping @Sendable () throws -> [UInt8]?) {
        while let chunk = try? next(), !chunk.isEmpty {
            guard write(chunk) else { return }
        }
        finish()
    }
}
