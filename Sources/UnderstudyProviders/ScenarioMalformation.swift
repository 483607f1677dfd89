/// How a signed token is made unparseable.
public enum ScenarioMalformation: Sendable, Hashable {
    /// Two segments instead of three.
    case segmentCount
    /// A character outside base64url in the payload.
    case badBase64
    /// A header that decodes to text that is not JSON.
    case headerNotJSON
    /// A fourth, empty segment after a trailing dot.
    case trailingDot
}
