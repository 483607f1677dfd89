import UnderstudyJSON

/// The parts of a compact JWS, decoded.
public struct DecodedJWS: Sendable {
    /// The protected header, members in token order.
    public var header: JSONObject
    /// The payload bytes.
    public var payload: [UInt8]
    /// The payload parsed as JSON, when it is a JSON object (JWT claims); nil otherwise.
    public var claims: JSONObject?
    /// `BASE64URL(header) "." BASE64URL(payload)` exactly as in the token: what was signed.
    public var signingInput: String
    /// The signature bytes (for ES256, raw r || s).
    public var signature: [UInt8]

    public init(header: JSONObject, payload: [UInt8], claims: JSONObject?, signingInput: String, signature: [UInt8]) {
        self.header = header
        self.payload = payload
        self.claims = claims
        self.signingInput = signingInput
        self.signature = signature
    }

    /// The header's "alg", if it is a string.
    public var algorithm: String? { header["alg"]?.stringValue }
    /// The header's "kid", if it is a string.
    public var keyID: String? { header["kid"]?.stringValue }
}
