/// Bounds on the work one message may cause. Beyond a limit the parser stops descending and keeps what
/// is left as an opaque part (undecoded bytes), and `MIMEMessage.isTruncated` is set.
public struct MIMELimits: Sendable, Hashable {
    /// Multipart nesting deeper than this is kept as one opaque part (at most 256: the parser recurses).
    public var maxDepth: Int
    /// Leaf parts listed; the remainder of a multipart beyond this becomes one opaque part.
    public var maxParts: Int
    /// Decoded body bytes kept across all parts; parts beyond it are kept undecoded.
    public var maxDecodedBytes: Int
    /// Header fields kept per message or part; later ones are dropped.
    public var maxHeaderFields: Int

    public init(maxDepth: Int = 32, maxParts: Int = 1000, maxDecodedBytes: Int = 64 << 20, maxHeaderFields: Int = 1000) {
        self.maxDepth = min(256, max(0, maxDepth))
        self.maxParts = max(1, maxParts)
        self.maxDecodedBytes = max(0, maxDecodedBytes)
        self.maxHeaderFields = max(1, maxHeaderFields)
    }
}
