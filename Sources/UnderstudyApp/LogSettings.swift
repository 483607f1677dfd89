/// The request log's settings (`log.*`).
public struct LogSettings: Sendable {
    public enum Format: String, Sendable { case text, json }
    /// `--log-format text|json`.
    public var format = Format.text
    /// `--quiet`: no request log.
    public var quiet = false
    public init() {}
}
