import UnderstudyJSON

/// What a provider would sign: the header, the claims and the key. Scenarios edit it before signing.
public struct UnsignedToken: Sendable {
    public var header: JSONObject
    public var claims: JSONObject
    public var key: ProviderKey

    public init(header: JSONObject, claims: JSONObject, key: ProviderKey) {
        self.header = header
        self.claims = claims
        self.key = key
    }
}
