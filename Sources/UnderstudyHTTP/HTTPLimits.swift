/// Bounds on what one request may make the parser hold.
public struct HTTPLimits: Sendable {
    /// Request line + header lines, counted with their line endings and the empty line that ends the
    /// head -> 431 beyond. Trailers of a chunked body get the same budget of their own.
    public var maxHeaderBytes = 16 * 1024
    /// Header lines -> 431 beyond. Trailers get the same budget of their own.
    public var maxHeaderCount = 100
    /// Decoded body bytes -> 413 beyond: decided at the header for Content-Length, at the first chunk
    /// that would pass it for chunked.
    public var maxBodyBytes = 1024 * 1024

    public init() {}

    public init(maxHeaderBytes: Int = 16 * 1024, maxHeaderCount: Int = 100, maxBodyBytes: Int = 1024 * 1024) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}
